// Traces with prefix information: Mooncake JSON lines and the project's csv, read into
// requests whose block hashes share exactly what the trace says they share.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/prefix_trace_source.h"
#include "workload/workload_test_util.h"

namespace prefix_trace_test {

using namespace servesim;
using servesim::testing::repo_file;
using servesim::testing::TempFile;

namespace {

std::vector<RequestSpec> drain(RequestSource& s) {
  std::vector<RequestSpec> out;
  while (s.peek_arrival_ns()) out.push_back(s.pop());
  return out;
}

std::size_t common_prefix(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

TEST_CASE("mooncake trace: 512-token ids become 16-token block hashes that share what the ids share", "[prefix]") {
  TempFile f("mc.jsonl",
             "{\"timestamp\": 0, \"input_length\": 700, \"output_length\": 5, \"hash_ids\": [1, 2]}\n"
             "\n"
             "{\"timestamp\": 1500, \"input_length\": 1024, \"output_length\": 0, \"hash_ids\": [1, 3]}\r\n"
             "{\"timestamp\": 2500.5, \"input_length\": 1000, \"output_length\": 7, \"hash_ids\": [1, 2]}\n");
  PrefixTraceSource s(f.path(), "mooncake", 1.0, 512, 16, 0);
  CHECK(s.row_count() == 3);
  const auto r = drain(s);
  REQUIRE(r.size() == 3);
  CHECK(r[0].arrival_ns == 0);
  CHECK(r[1].arrival_ns == 1'500'000'000);
  CHECK(r[2].arrival_ns == 2'500'500'000);
  CHECK(r[1].prompt_tokens == 1024);
  CHECK(r[2].output_tokens == 7);
  // 700 tokens: 43 full blocks of 16 (688 tokens); 1024: 64; 1000: 62.
  CHECK(r[0].block_hashes.size() == 43);
  CHECK(r[1].block_hashes.size() == 64);
  CHECK(r[2].block_hashes.size() == 62);
  // Id 1 (512 tokens = 32 blocks) is shared by all; id 2 by rows 0 and 2 over the 188
  // tokens (11 blocks) row 0 has of it.
  CHECK(common_prefix(r[0].block_hashes, r[1].block_hashes) == 32);
  CHECK(common_prefix(r[0].block_hashes, r[2].block_hashes) == 43);
  CHECK(r[0].session_id == 0);
}

TEST_CASE("mooncake trace: bad rows are refused with their line and key", "[prefix]") {
  struct Bad {
    const char* text;
    int line;
    const char* key;
    const char* message;
  };
  const std::vector<Bad> rows = {
      {"{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\nnot json\n", 2, "",
       "expected one JSON object"},
      {"{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [1, 2, 3]}\n", 1, "hash_ids",
       "at most one per 512-token block"},
      {"{\"timestamp\": 5, \"input_length\": 6, \"output_length\": 1, \"hash_ids\": []}\n"
       "{\"timestamp\": 4, \"input_length\": 6, \"output_length\": 1, \"hash_ids\": []}\n",
       2, "timestamp", "arrival order"},
      {"{\"timestamp\": 0, \"input_length\": 0, \"output_length\": 1, \"hash_ids\": []}\n", 1, "input_length",
       "whole number >= 1"},
      {"{\"timestamp\": 0, \"input_length\": 9, \"output_length\": 1, \"hash_ids\": [-4]}\n", 1, "hash_ids",
       "whole numbers >= 0"},
      {"{\"timestamp\": 0, \"input_length\": 9, \"output_length\": 1}\n", 1, "hash_ids", "list of block ids"},
  };
  for (const Bad& b : rows) {
    TempFile f("bad.jsonl", b.text);
    try {
      PrefixTraceSource s(f.path(), "mooncake", 1.0, 512, 16, 0);
      FAIL("no error for " << b.text);
    } catch (const ConfigError& e) {
      CHECK(e.line() == b.line);
      CHECK(e.key() == b.key);
      CHECK_THAT(e.message(), Catch::Contains(b.message));
    }
  }
}

TEST_CASE("csv trace: prefix hashes - sessions and turn numbers", "[prefix]") {
  TempFile f("p.csv",
             "arrival_s,input_tokens,output_tokens,session_id,prefix_hashes\n"
             "0.0,100,20,7,\n"
             "0.5,64,3,,5 6\n"
             "1.0,150,9,7,\n"
             "1.5,80,3,,5;9\n"
             "2.0,30,3,,\n");
  // Ids of 32-token blocks; KV blocks of 16 tokens.
  PrefixTraceSource s(f.path(), "csv", 1.0, 32, 16, 2);
  const auto r = drain(s);
  REQUIRE(r.size() == 5);
  CHECK(r[1].arrival_ns == 500'000'000);
  CHECK(r[0].class_index == 2);
  CHECK((r[0].session_id == 7 && r[0].turn == 1));
  CHECK((r[2].session_id == 7 && r[2].turn == 2));
  CHECK((r[1].session_id == 0 && r[1].turn == 0));
  // Session rows hash prompt + output as one stream: turn 1 covers 120 tokens (7 blocks),
  // turn 2 159 (9 blocks); the first 7 agree, so turn 2 can hit all turn 1 computed.
  CHECK(r[0].block_hashes.size() == 7);
  CHECK(r[2].block_hashes.size() == 9);
  CHECK(common_prefix(r[0].block_hashes, r[2].block_hashes) == 7);
  // Rows with ids 5 6 and 5 9 share the first 32-token block: 2 blocks of 16.
  CHECK(common_prefix(r[1].block_hashes, r[3].block_hashes) == 2);
  // A row with neither ids nor a session shares nothing.
  CHECK(r[4].block_hashes.empty());
}

TEST_CASE("csv trace: the columns are checked like every other trace", "[prefix]") {
  TempFile missing("m.csv", "arrival_s,input_tokens\n0,5\n");
  CHECK_THROWS_WITH(PrefixTraceSource(missing.path(), "csv", 1.0, 512, 16, 0), Catch::Contains("output_tokens"));
  TempFile bad_ids("b.csv", "arrival_s,input_tokens,output_tokens,prefix_hashes\n0,5,1,1 x\n");
  CHECK_THROWS_WITH(PrefixTraceSource(bad_ids.path(), "csv", 1.0, 512, 16, 0), Catch::Contains("whole numbers >= 0"));
  TempFile bad_session("s.csv", "arrival_s,input_tokens,output_tokens,session_id\n0,5,1,0\n");
  CHECK_THROWS_WITH(PrefixTraceSource(bad_session.path(), "csv", 1.0, 512, 16, 0), Catch::Contains("at least 1"));
}

TEST_CASE("mooncake trace: the copied conversation trace reads whole", "[prefix]") {
  PrefixTraceSource s(repo_file("data/traces/mooncake_fast25_conversation_trace.jsonl"), "mooncake", 1.0, 512, 512, 0);
  CHECK(s.row_count() == 12031);
  std::int64_t input = 0, blocks = 0, n = 0;
  Tick last = 0;
  while (s.peek_arrival_ns()) {
    const RequestSpec r = s.pop();
    input += r.prompt_tokens;
    blocks += static_cast<std::int64_t>(r.block_hashes.size());
    last = r.arrival_ns;
    ++n;
  }
  CHECK(n == 12031);
  // Sums computed from the file by an independent script: total input 144,793,823 tokens
  // (mean 12035.06), and sum of floor(input / 512) = 276,491 full 512-token blocks.
  CHECK(input == 144793823);
  CHECK(last == 3'536'999'000'000);
  CHECK(blocks == 276491);  // at 512-token KV blocks, one hash per full block
}

}  // namespace prefix_trace_test
