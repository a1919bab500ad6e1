// Structured prompts: chained block hashes from content runs, and the segments of a class's
// `prompt:` list (shared, pool with Zipf popularity, unique).
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <vector>

#include "sim/workload/block_hashing.h"
#include "sim/workload/prompt_structure.h"

namespace prompt_structure_test {

using namespace servesim;

namespace {

DistSpec fixed(double v) {
  DistSpec d;
  d.kind = DistSpec::Kind::fixed;
  d.a = v;
  return d;
}

PromptSegmentSpec shared(const std::string& name, double tokens) {
  PromptSegmentSpec s;
  s.kind = PromptSegmentSpec::Kind::shared;
  s.name = name;
  s.tokens = fixed(tokens);
  return s;
}

PromptSegmentSpec unique(double tokens) {
  PromptSegmentSpec s;
  s.kind = PromptSegmentSpec::Kind::unique;
  s.tokens = fixed(tokens);
  return s;
}

PromptSegmentSpec pool(const std::string& name, std::int64_t count, double zipf, double tokens) {
  PromptSegmentSpec s;
  s.kind = PromptSegmentSpec::Kind::pool;
  s.name = name;
  s.count = count;
  s.zipf = zipf;
  s.tokens = fixed(tokens);
  return s;
}

std::vector<std::uint64_t> hashes_of(PromptGenerator& g, std::int64_t block) {
  std::vector<ContentRun> runs;
  g.next(runs);
  return chained_block_hashes(runs, block);
}

}  // namespace

TEST_CASE("block hashes: one per full block - independent of how the runs are cut", "[prefix]") {
  const std::vector<ContentRun> whole = {{7, 0, 40}};
  const std::vector<ContentRun> cut = {{7, 0, 13}, {7, 13, 20}, {7, 33, 7}, {9, 0, 0}};
  const auto a = chained_block_hashes(whole, 16);
  const auto b = chained_block_hashes(cut, 16);
  CHECK(a.size() == 2);  // 40 tokens: blocks 0-15 and 16-31; 32-39 is partial
  CHECK(a == b);
  CHECK(chained_block_hashes(whole, 8).size() == 5);
  CHECK(chained_block_hashes(whole, 64).empty());
  CHECK(a[0] != a[1]);
}

TEST_CASE("block hashes: only the first 2^22 tokens of an absurdly long prompt are hashed", "[prefix]") {
  // A 10-million-token draw from a long-tailed distribution must not cost 5 MB of hashes.
  CHECK(chained_block_hashes(std::vector<ContentRun>{{1, 0, 10'000'000}}, 16).size() == 4194304 / 16);
  CHECK(chained_block_hashes(std::vector<ContentRun>{{1, 0, 4194304}}, 16).size() == 262144);
}

TEST_CASE("block hashes: one different token early changes every later hash", "[prefix]") {
  // The same 32 tokens of document 7, preceded by 4 tokens of either document 1 or 2.
  const auto a = chained_block_hashes(std::vector<ContentRun>{{1, 0, 4}, {7, 0, 60}}, 16);
  const auto b = chained_block_hashes(std::vector<ContentRun>{{2, 0, 4}, {7, 0, 60}}, 16);
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == 4);
  for (std::size_t j = 0; j < a.size(); ++j) CHECK(a[j] != b[j]);
  // Appending content keeps the earlier hashes: the chain is over the prefix only.
  const auto longer = chained_block_hashes(std::vector<ContentRun>{{1, 0, 4}, {7, 0, 60}, {3, 0, 100}}, 16);
  REQUIRE(longer.size() == 10);
  for (std::size_t j = 0; j < 4; ++j) CHECK(longer[j] == a[j]);
  // Same content at another offset is other content.
  const auto shifted = chained_block_hashes(std::vector<ContentRun>{{7, 1, 32}}, 16);
  CHECK(shifted[0] != chained_block_hashes(std::vector<ContentRun>{{7, 0, 32}}, 16)[0]);
}

TEST_CASE("prompt structure: a shared system prompt gives the same leading blocks to every request", "[prefix]") {
  PromptGenerator g({shared("system", 100), unique(30)}, "chat", 1);
  const auto a = hashes_of(g, 16);
  const auto b = hashes_of(g, 16);
  // 130 tokens = 8 full blocks; blocks 0..5 (tokens 0-95) are all system prompt, block 6
  // (96-111) mixes in the unique part.
  REQUIRE(a.size() == 8);
  REQUIRE(b.size() == 8);
  for (int j = 0; j < 6; ++j) CHECK(a[static_cast<std::size_t>(j)] == b[static_cast<std::size_t>(j)]);
  for (int j = 6; j < 8; ++j) CHECK(a[static_cast<std::size_t>(j)] != b[static_cast<std::size_t>(j)]);
  // Another class naming the same shared segment has the same system prompt.
  PromptGenerator other({shared("system", 100), unique(5)}, "batch", 99);
  const auto c = hashes_of(other, 16);
  for (int j = 0; j < 6; ++j) CHECK(c[static_cast<std::size_t>(j)] == a[static_cast<std::size_t>(j)]);
}

TEST_CASE("prompt structure: a unique segment first (the timestamp at the top) shares nothing", "[prefix]") {
  PromptGenerator g({unique(4), shared("system", 1000)}, "chat", 1);
  std::set<std::uint64_t> seen;
  std::size_t total = 0;
  for (int i = 0; i < 50; ++i) {
    for (std::uint64_t h : hashes_of(g, 16)) {
      seen.insert(h);
      ++total;
    }
  }
  CHECK(total == 50 * (1004 / 16));
  CHECK(seen.size() == total);  // no block of any request equals a block of another
}

TEST_CASE("prompt structure: pool documents follow Zipf popularity and keep their content", "[prefix]") {
  // count 4, zipf 1: P(i) = (1/(i+1)) / H_4, H_4 = 25/12.
  PromptGenerator g({pool("docs", 4, 1.0, 64)}, "rag", 3);
  const int n = 20000;
  std::vector<int> picks(4, 0);
  std::vector<std::vector<std::uint64_t>> first_hashes(4);
  for (int i = 0; i < n; ++i) {
    std::vector<ContentRun> runs;
    CHECK(g.next(runs) == 64);
    const std::int64_t d = g.last_document(0);
    REQUIRE((d >= 0 && d < 4));
    ++picks[static_cast<std::size_t>(d)];
    const auto h = chained_block_hashes(runs, 16);
    auto& first = first_hashes[static_cast<std::size_t>(d)];
    if (first.empty()) first = h;
    CHECK(h == first);  // a document is always the same tokens
  }
  const double h4 = 25.0 / 12.0;
  for (int i = 0; i < 4; ++i) {
    const double p = (1.0 / (i + 1)) / h4;
    const double sd = std::sqrt(n * p * (1 - p));
    CHECK(std::abs(picks[static_cast<std::size_t>(i)] - n * p) < 5 * sd);
  }
  CHECK(first_hashes[0] != first_hashes[1]);
}

TEST_CASE("prompt structure: a prompt that draws no tokens is raised to one and counted", "[prefix]") {
  PromptGenerator g({unique(0)}, "empty", 1);
  std::vector<ContentRun> runs;
  CHECK(g.next(runs) == 1);
  CHECK(g.raised_prompts() == 1);
}

}  // namespace prompt_structure_test
