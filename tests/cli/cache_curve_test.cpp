// `servesim cache-curve` as a user runs it: JSON per size equal to the library's replay,
// and exit code 2 with a message for bad input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/engine/prefix_cache_replay.h"

namespace cache_curve_test {

using servesim::testing::run_cli;

TEST_CASE("cache-curve: the Mooncake conversation trace at five sizes - as JSON", "[prefix]") {
  const auto r = run_cli(
      "cache-curve --trace data/traces/mooncake_fast25_conversation_trace.jsonl --format mooncake "
      "--sizes 100k,1M,4M,16M,inf --json");
  REQUIRE(r.exit_code == 0);
  const auto list = nlohmann::json::parse(r.output);
  REQUIRE(list.size() == 5);
  const auto trace = servesim::read_prefix_units(
      std::string(SERVESIM_SOURCE_DIR) + "/data/traces/mooncake_fast25_conversation_trace.jsonl", "mooncake");
  const std::int64_t sizes[] = {100'000, 1'000'000, 4'000'000, 16'000'000, servesim::kUnlimitedCacheTokens};
  double previous = -1;
  for (std::size_t i = 0; i < 5; ++i) {
    const auto want = servesim::replay_prefix_cache(trace, sizes[i]);
    CHECK(list[i]["hit_tokens"].get<std::int64_t>() == want.hit_tokens);
    CHECK(list[i]["prompt_tokens"].get<std::int64_t>() == 144793823);
    CHECK(list[i]["hit_ratio"].get<double>() == Approx(want.hit_ratio));
    CHECK(list[i]["hit_ratio"].get<double>() >= previous);  // a bigger LRU cache never hits less here
    previous = list[i]["hit_ratio"].get<double>();
  }
  CHECK(list[0]["size_tokens"].get<std::int64_t>() == 100'000);
  CHECK(list[4]["size_tokens"].is_null());  // inf
}

TEST_CASE("cache-curve: per-replica caches under a router", "[prefix]") {
  const auto r = run_cli(
      "cache-curve --trace data/traces/mooncake_fast25_synthetic_trace.jsonl --format mooncake --sizes inf "
      "--replicas 3 --router round-robin --json");
  REQUIRE(r.exit_code == 0);
  const auto list = nlohmann::json::parse(r.output);
  // Three caches that each see a third of the requests hit less than one that sees all.
  const auto trace = servesim::read_prefix_units(
      std::string(SERVESIM_SOURCE_DIR) + "/data/traces/mooncake_fast25_synthetic_trace.jsonl", "mooncake");
  const auto round_robin = [](std::size_t i, std::span<const std::int64_t>) { return static_cast<int>(i % 3); };
  CHECK(list[0]["hit_tokens"].get<std::int64_t>() ==
        servesim::replay_prefix_cache(trace, servesim::kUnlimitedCacheTokens, 3, round_robin).hit_tokens);
  CHECK(list[0]["hit_ratio"].get<double>() < servesim::replay_prefix_cache(trace, servesim::kUnlimitedCacheTokens).hit_ratio);
}

TEST_CASE("cache-curve: bad input exits 2 with a message", "[prefix]") {
  const auto no_prefix = run_cli("cache-curve --trace data/traces/azure_llm_2023_conv.csv --format azure --sizes 1M");
  CHECK(no_prefix.exit_code == 2);
  CHECK_THAT(no_prefix.output, Catch::Contains("mooncake or csv"));
  const auto bad_size = run_cli(
      "cache-curve --trace data/traces/mooncake_fast25_synthetic_trace.jsonl --format mooncake --sizes 10,abc");
  CHECK(bad_size.exit_code == 2);
  CHECK_THAT(bad_size.output, Catch::Contains("'abc'"));
  const auto missing = run_cli("cache-curve --trace nowhere.jsonl --format mooncake --sizes 1M");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("nowhere.jsonl"));
  const auto router = run_cli(
      "cache-curve --trace data/traces/mooncake_fast25_synthetic_trace.jsonl --format mooncake --sizes 1M "
      "--replicas 2 --router magic");
  CHECK(router.exit_code == 2);
  CHECK_THAT(router.output, Catch::Contains("unknown router 'magic'"));
  // One global cache: a router would pick nothing, so it is refused rather than ignored.
  const auto lone = run_cli(
      "cache-curve --trace data/traces/mooncake_fast25_synthetic_trace.jsonl --format mooncake --sizes 1M "
      "--router least-kv");
  CHECK(lone.exit_code == 2);
  CHECK_THAT(lone.output, Catch::Contains("--router picks one of --replicas N caches; give --replicas 2 or more"));
}

TEST_CASE("cache-curve: KV tiers below each cache recover evicted prefixes - never more than an unbounded cache",
          "[prefix][kv_tiers]") {
  const std::string trace = "--trace data/traces/mooncake_fast25_conversation_trace.jsonl --format mooncake --json ";
  const auto hbm = nlohmann::json::parse(run_cli("cache-curve " + trace + "--sizes 400k,inf").output);
  const auto cpu = nlohmann::json::parse(run_cli("cache-curve " + trace + "--sizes 400k --cpu-tokens 2M").output);
  const auto both =
      nlohmann::json::parse(run_cli("cache-curve " + trace + "--sizes 400k --cpu-tokens 2M --disk-tokens 8M").output);
  const auto endless = nlohmann::json::parse(run_cli("cache-curve " + trace + "--sizes 400k --cpu-tokens inf").output);
  const std::int64_t hbm_hits = hbm[0]["hit_tokens"], unbounded = hbm[1]["hit_tokens"];
  const std::int64_t cpu_hits = cpu[0]["hit_tokens"], both_hits = both[0]["hit_tokens"];
  CHECK(hbm[0].count("cpu_hit_tokens") == 0);  // without tiers the output is as it always was
  CHECK(cpu_hits > hbm_hits);
  CHECK(both_hits > cpu_hits);
  CHECK(both_hits <= unbounded);
  CHECK(both[0]["disk_hit_tokens"].get<std::int64_t>() > 0);
  CHECK(cpu[0]["disk_hit_tokens"].get<std::int64_t>() == 0);
  // An unbounded CPU tier keeps every block the cache ever held: together they hit what one
  // unbounded cache does (no prompt of this trace outgrows 400k tokens).
  CHECK(endless[0]["hit_tokens"].get<std::int64_t>() == unbounded);
  CHECK(endless[0]["cpu_hit_tokens"].get<std::int64_t>() + hbm_hits <= unbounded);
  const auto bad = run_cli("cache-curve " + trace + "--sizes 400k --cpu-tokens lots");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--cpu-tokens takes token counts"));
}

}  // namespace cache_curve_test
