// Vidur and length-only traces, and malformed trace files of every format: each error must
// name the file, the line and the column.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/workload/source.h"
#include "workload_test_util.h"

namespace trace_files_test {

using namespace servesim;
using servesim::testing::repo_file;
using servesim::testing::TempFile;

namespace {

ClassSpec trace_class(const std::string& format, const std::string& path, double speedup = 1.0) {
  ClassSpec spec;
  spec.name = "trace";
  spec.trace = TraceSpec{};  // fields by name: the spec grows
  spec.trace->format = format;
  spec.trace->path = path;
  spec.trace->speedup = speedup;
  if (format == "lengths") {
    ArrivalSpec arrival;
    arrival.process = ArrivalSpec::Process::constant;
    arrival.rate_per_s = 2.0;
    spec.arrival = arrival;
  }
  return spec;
}

std::vector<RequestSpec> replay(RequestSource& source) {
  std::vector<RequestSpec> out;
  while (source.peek_arrival_ns()) out.push_back(source.pop());
  return out;
}

// Builds the source and returns the ConfigError's message ("" if none was thrown).
std::string error_of(const ClassSpec& spec) {
  try {
    make_source(spec, 0, 1);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("vidur trace: arrived_at seconds become arrivals - extra columns are ignored", "[workload]") {
  TempFile file("vidur.csv",
                "num_decode_tokens,arrived_at,extra,num_prefill_tokens\n"
                "5,0.0,x,100\n"
                "0,0.5,y,200\n"
                "7,2.25,z,300\n");
  const auto requests = replay(*make_source(trace_class("vidur", file.path(), 2.0), 1, 1));
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].arrival_ns == 0);
  CHECK(requests[1].arrival_ns == 250'000'000);    // 0.5 s / 2
  CHECK(requests[2].arrival_ns == 1'125'000'000);  // 2.25 s / 2
  CHECK(requests[2].prompt_tokens == 300);
  CHECK(requests[2].output_tokens == 7);
  CHECK(requests[1].output_tokens == 0);  // prefill-only requests are allowed
}

TEST_CASE("lengths trace: every ShareGPT row is used once - in order - then the source is exhausted", "[workload]") {
  const std::string path = repo_file("data/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv");
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::pair<long, long>> rows;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string a, b;
    std::getline(row, a, ',');
    std::getline(row, b, ',');
    rows.emplace_back(std::stol(a), std::stol(b));
  }
  REQUIRE(rows.size() == 30731);
  const auto source = make_source(trace_class("lengths", path), 0, 1);
  const auto requests = replay(*source);
  CHECK(source->exhausted());
  REQUIRE(requests.size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    REQUIRE(requests[i].prompt_tokens == rows[i].first);
    REQUIRE(requests[i].output_tokens == rows[i].second);
    REQUIRE(requests[i].arrival_ns == static_cast<Tick>(i + 1) * 500'000'000);  // constant 2/s
  }
}

TEST_CASE("lengths trace: a closed loop can replay a length file", "[workload]") {
  TempFile file("lengths.csv", "num_prefill_tokens,num_decode_tokens\n10,1\n20,2\n30,3\n");
  ClassSpec spec = trace_class("lengths", file.path());
  spec.arrival->process = ArrivalSpec::Process::closed;
  spec.arrival->concurrency = 2;
  const auto source = make_source(spec, 0, 1);
  CHECK(source->pop().prompt_tokens == 10);
  CHECK(source->pop().prompt_tokens == 20);
  CHECK_FALSE(source->peek_arrival_ns().has_value());
  source->on_finished(RequestSpec{}, 100);
  CHECK(source->peek_arrival_ns() == Tick{100});
  CHECK(source->pop().prompt_tokens == 30);
  source->on_finished(RequestSpec{}, 200);
  CHECK_FALSE(source->peek_arrival_ns().has_value());
  CHECK(source->exhausted());
}

TEST_CASE("lengths trace: without an arrival process it is a ConfigError", "[workload]") {
  ClassSpec spec = trace_class("lengths", repo_file("data/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv"));
  spec.arrival.reset();
  CHECK_THAT(error_of(spec), Catch::Contains("arrival"));
}

TEST_CASE("malformed traces: errors name the file - the line and the column", "[workload]") {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
  const std::string row1 = "2023-11-16 18:15:46.6805900,374,44\r\n";
  const std::string row2 = "2023-11-16 18:15:50.9951690,396,109\r\n";

  SECTION("a row earlier than the one before it") {
    TempFile file("out_of_order.csv", header + row2 + row1);
    CHECK_THAT(error_of(trace_class("azure", file.path())),
               Catch::Contains(file.path() + ":3:1") && Catch::Contains("TIMESTAMP"));
  }
  SECTION("a malformed timestamp") {
    TempFile file("bad_time.csv", header + row1 + "yesterday,1,1\r\n");
    CHECK_THAT(error_of(trace_class("azure", file.path())),
               Catch::Contains(file.path() + ":3") && Catch::Contains("TIMESTAMP") && Catch::Contains("yesterday"));
  }
  SECTION("zero context tokens") {
    TempFile file("zero_ctx.csv", header + row1 + row1 + "2023-11-16 18:15:50.9951690,0,109\r\n");
    CHECK_THAT(error_of(trace_class("azure", file.path())),
               Catch::Contains(file.path() + ":4:29") && Catch::Contains("ContextTokens"));
  }
  SECTION("non-numeric generated tokens") {
    TempFile file("nan_gen.csv", header + "2023-11-16 18:15:46.6805900,374,lots\r\n");
    CHECK_THAT(error_of(trace_class("azure", file.path())),
               Catch::Contains(file.path() + ":2") && Catch::Contains("GeneratedTokens") && Catch::Contains("lots"));
  }
  SECTION("a short row") {
    TempFile file("short.csv", header + row1 + "2023-11-16 18:15:50.9951690,396\r\n");
    CHECK_THAT(error_of(trace_class("azure", file.path())),
               Catch::Contains(file.path() + ":3") && Catch::Contains("GeneratedTokens"));
  }
  SECTION("a thousands separator: 1,396 would read as 1 prompt token and 396 outputs") {
    TempFile file("thousands.csv", header + row1 + "2023-11-16 18:15:50.9951690,1,396,109\r\n");
    CHECK_THAT(error_of(trace_class("azure", file.path())),
               Catch::Contains(file.path() + ":3:") && Catch::Contains("the row has 4 fields but the header names 3"));
  }
  SECTION("a missing column") {
    TempFile file("no_col.csv", "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.6805900,374\n");
    CHECK_THAT(error_of(trace_class("azure", file.path())),
               Catch::Contains(file.path() + ":1") && Catch::Contains("GeneratedTokens"));
  }
  SECTION("a missing file") {
    const std::string path = repo_file("data/traces/no-such-trace.csv");
    CHECK_THAT(error_of(trace_class("azure", path)), Catch::Contains(path));
  }
  SECTION("an empty file") {
    TempFile file("empty.csv", "");
    CHECK_THAT(error_of(trace_class("vidur", file.path())), Catch::Contains(file.path() + ":1"));
  }
  SECTION("vidur: a negative arrival and an out-of-order row") {
    TempFile negative("vidur_neg.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n-1,10,1\n");
    CHECK_THAT(error_of(trace_class("vidur", negative.path())),
               Catch::Contains(negative.path() + ":2:1") && Catch::Contains("arrived_at"));
    TempFile order("vidur_order.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n1,10,1\n0.5,10,1\n");
    CHECK_THAT(error_of(trace_class("vidur", order.path())),
               Catch::Contains(order.path() + ":3:1") && Catch::Contains("arrived_at"));
  }
  SECTION("lengths: a fractional or negative length") {
    TempFile fraction("len_frac.csv", "num_prefill_tokens,num_decode_tokens\n10,1\n12.5,1\n");
    CHECK_THAT(error_of(trace_class("lengths", fraction.path())),
               Catch::Contains(fraction.path() + ":3:1") && Catch::Contains("num_prefill_tokens"));
    TempFile negative("len_neg.csv", "num_prefill_tokens,num_decode_tokens\n10,-1\n");
    CHECK_THAT(error_of(trace_class("lengths", negative.path())),
               Catch::Contains(negative.path() + ":2:4") && Catch::Contains("num_decode_tokens"));
  }
}

// The optional lora_adapter column of the timed formats (docs/workload.md, "Trace formats").
TEST_CASE("trace lora_adapter column: each row's adapter is its request's", "[workload][lora]") {
  TempFile file("lora.csv",
                "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n"
                "0.0,100,5,3\n"
                "0.5,200,6,0\n"
                "1.0,300,7,32767\n");
  auto source = make_source(trace_class("vidur", file.path()), 0, 1);
  CHECK(source->names_adapters());
  std::vector<int> adapters;
  while (source->peek_arrival_ns()) adapters.push_back(source->pop().lora_adapter);
  CHECK(adapters == std::vector<int>{3, 0, 32767});
  // Without the column nobody names an adapter.
  TempFile plain("plain.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,100,5\n");
  auto base = make_source(trace_class("vidur", plain.path()), 0, 1);
  CHECK_FALSE(base->names_adapters());
  CHECK(base->pop().lora_adapter == 0);
}

TEST_CASE("trace lora_adapter column: bad cells and a second source of adapters are refused", "[workload][lora]") {
  TempFile negative("neg.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,-1\n");
  CHECK_THAT(error_of(trace_class("vidur", negative.path())), Catch::Contains(negative.path() + ":2"));
  CHECK_THAT(error_of(trace_class("vidur", negative.path())), Catch::Contains("lora_adapter"));
  TempFile big("big.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,32768\n");
  CHECK_THAT(error_of(trace_class("vidur", big.path())), Catch::Contains("must be at most 32767"));
  TempFile text("text.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,sql\n");
  CHECK_THAT(error_of(trace_class("vidur", text.path())), Catch::Contains(text.path() + ":2"));
  // The column and a `lora:` distribution both: one would be silently unused.
  TempFile ok("ok.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,1\n");
  ClassSpec both = trace_class("vidur", ok.path());
  both.lora = LoraDemandSpec{};
  CHECK_THAT(error_of(both), Catch::Contains("lora_adapter column") && Catch::Contains("lora"));
}

}  // namespace trace_files_test
