// scenarios/shared-prefix.yaml (inference-perf's shared-prefix workload): the prefix-cache
// hits follow from its lengths, worked out by hand.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"

namespace shared_prefix_scenario_test {

using namespace servesim::testing;

TEST_CASE("shared-prefix scenario: every request after its group's first hits the group's system prompt",
          "[cli][prefix]") {
  TempDir dir("shared-prefix");
  const CliResult r = run_cli("run scenarios/shared-prefix.yaml --out " + dir.path.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json s = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  const std::vector<CsvRequest> rows = parse_requests_csv(read_file(dir.path / "requests.csv"));

  // Constant arrivals at 4/s for 100 s: k/4 s for k = 1..400; the 30 s warm-up holds the
  // 119 that arrive before 30 s.
  REQUIRE(rows.size() == 400);
  CHECK(s["warmup_excluded"] == 119);
  CHECK(s["completed"] == 400 - 119);

  // Prompt: one of 8 system prompts of 1500 tokens, then 150 tokens of its own. A hit is
  // whole 16-token blocks of the system prompt: floor(1500 / 16) x 16 = 1488 tokens, the
  // 94th block mixing in the question.
  constexpr std::int64_t kHit = 1500 / 16 * 16;
  static_assert(kHit == 1488);
  int misses = 0, hits = 0;
  for (const CsvRequest& row : rows) {
    CAPTURE(row.id);
    REQUIRE(row.prompt_tokens == 1650);
    REQUIRE(row.outcome == "completed");
    // The first request of each group computes the system prompt; after that, the cache has it.
    if (row.cached_prompt_tokens == 0) ++misses;
    else if (row.cached_prompt_tokens == kHit) ++hits;
    if (row.arrival_ns >= 30'000'000'000) CHECK(row.cached_prompt_tokens == kHit);
  }
  // One miss per group: 8 system prompts (a single shared one would miss once; a unique
  // prefix per request 400 times).
  CHECK(misses == 8);
  CHECK(hits == 400 - 8);
  // After the warm-up every request hits exactly 1488 of its 1650 prompt tokens.
  CHECK(s["prefix_cache_hit_rate"].get<double>() == Approx(1488.0 / 1650.0).epsilon(1e-12));
  CHECK(s["cached_input_tokens"] == (400 - 119) * kHit);
}

}  // namespace shared_prefix_scenario_test
