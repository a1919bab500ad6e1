// The servability check (sim/scenario/servability.h) that validate, run and the Python API
// share: each scenario that can serve nothing is refused at the line and key to change,
// with the fix; a share of requests that will be rejected is warned of, with the share
// worked out by hand.
#include <catch2/catch.hpp>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/servability.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::servability_test {
namespace {

// Loads `yaml` and checks it; the ConfigError it throws, if any.
std::optional<ConfigError> refusal(const ScenarioDir& dir, const std::string& yaml,
                                   const std::vector<std::string>& sets = {}, Servability* out = nullptr) {
  const std::string path = dir.write("study.yaml", yaml);
  const Scenario s = load_scenario(path, sets);
  try {
    Servability servable = check_servability(s, sets);
    if (out) *out = std::move(servable);
  } catch (const ConfigError& e) {
    return e;
  }
  return std::nullopt;
}

// kMinimalScenario with its class fed by trace `file` (lines 3-5 become one line 3).
std::string with_trace(const std::string& file) {
  return edit_line(edit_line(edit_line(kMinimalScenario, 5, ""), 4, ""), 3,
                   "    trace: {format: azure, path: " + file + "}");
}

TEST_CASE("servability: a fixed prompt longer than the context is refused at the input", "[scenario][servability]") {
  ScenarioDir dir;
  // test-gqa's context is 8192 tokens; 9000 + 10 is beyond it.
  const auto e = refusal(dir, edit_line(kMinimalScenario, 4, "    input: {fixed: 9000}"));
  REQUIRE(e);
  CHECK(e->line() == 4);
  CHECK(e->key() == "workload.0.input");
  CHECK_THAT(e->message(), Catch::Contains("class 'chat' cannot be served: its smallest request (prompt 9000 + "
                                           "output 10 tokens) is longer than the 8192-token context of test-gqa"));
  CHECK_THAT(e->message(), Catch::Contains("set engine.on_context_overflow: truncate"));
  // Truncated to the context instead, every request is served.
  CHECK_FALSE(refusal(dir, edit_line(kMinimalScenario, 4, "    input: {fixed: 9000}"),
                      {"cluster.pools.0.engine.on_context_overflow=truncate"}));
}

TEST_CASE("servability: input 1e12 and a minimum beyond the context are refused", "[scenario][servability]") {
  ScenarioDir dir;
  const auto huge = refusal(dir, edit_line(kMinimalScenario, 4, "    input: 1e12"));
  REQUIRE(huge);
  CHECK(huge->key() == "workload.0.input");
  CHECK_THAT(huge->message(), Catch::Contains("prompt 1000000000000 + output 10"));
  // Every draw is clamped to at least 8500: none fits.
  const auto clamped = refusal(dir, edit_line(kMinimalScenario, 4, "    input: {normal: {mean: 9000, std: 500}, min: 8500}"));
  REQUIRE(clamped);
  CHECK(clamped->line() == 4);
  CHECK_THAT(clamped->message(), Catch::Contains("prompt 8500 + output 10"));
}

TEST_CASE("servability: a KV cache smaller than the smallest request is refused at kv_cache_tokens",
          "[scenario][servability]") {
  ScenarioDir dir;
  // Prompt 100 + output 10 keeps 100 + 9 = 109 tokens of KV: ceil(109 / 16) = 7 blocks; the
  // cache holds 16 tokens, one block.
  const auto e = refusal(dir, edit_line(kMinimalScenario, 11, "      engine: {policy: continuous, kv_cache_tokens: 16}"));
  REQUIRE(e);
  CHECK(e->line() == 11);
  CHECK(e->key() == "cluster.pools.0.engine.kv_cache_tokens");
  CHECK_THAT(e->message(), Catch::Contains("needs 7 KV blocks and a replica of pool 'main' holds 1 blocks of 16 tokens"));
  CHECK_THAT(e->message(), Catch::Contains("(engine.kv_cache_tokens at least 112)"));
  // The same value from --set is placed at --set.
  const auto set = refusal(dir, kMinimalScenario, {"cluster.pools.0.engine.kv_cache_tokens=16"});
  REQUIRE(set);
  CHECK(set->file() == "--set");
  CHECK(set->key() == "cluster.pools.0.engine.kv_cache_tokens");
  // 112 tokens hold the 7 blocks.
  CHECK_FALSE(refusal(dir, kMinimalScenario, {"cluster.pools.0.engine.kv_cache_tokens=112"}));
}

TEST_CASE("servability: an empty trace and a header-only trace are refused", "[scenario][servability]") {
  ScenarioDir dir;
  dir.write("empty.csv", "");
  const auto empty = refusal(dir, with_trace("empty.csv"));
  REQUIRE(empty);
  CHECK(empty->file() == dir.path("empty.csv"));
  CHECK_THAT(empty->message(), Catch::Contains("the file is empty"));

  dir.write("header.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n");
  const auto header = refusal(dir, with_trace("header.csv"));
  REQUIRE(header);
  CHECK(header->line() == 3);
  CHECK(header->key() == "workload.0.trace.path");
  CHECK_THAT(header->message(), Catch::Contains("has no requests (a header and no rows)"));
}

TEST_CASE("servability: a trace's requests beyond the context are counted or refused when all are",
          "[scenario][servability]") {
  ScenarioDir dir;
  // 374 + 44 and 396 + 109 fit the 8192-token context; 9000 + 10 does not.
  dir.write("some.csv", std::string(servesim::testing::kAzureTraceCsv) + "2023-11-16 18:15:51.0000000,9000,10\n");
  Servability servable;
  REQUIRE_FALSE(refusal(dir, with_trace("some.csv"), {}, &servable));
  REQUIRE(servable.warnings.size() == 1);
  CHECK_THAT(servable.warnings[0], Catch::Contains("study.yaml:3:"));
  CHECK_THAT(servable.warnings[0], Catch::Contains("workload.0.trace.path: 1 of the 3 requests of trace"));
  CHECK_THAT(servable.warnings[0], Catch::Contains("1 longer than the 8192-token context"));

  dir.write("all.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.0,9000,10\n"
                       "2023-11-16 18:15:47.0,8192,1\n");
  const auto all = refusal(dir, with_trace("all.csv"));
  REQUIRE(all);
  CHECK(all->key() == "workload.0.trace.path");
  CHECK_THAT(all->message(), Catch::Contains("every one of the 2 requests"));
}

TEST_CASE("servability: the share of a distribution beyond the context is warned of", "[scenario][servability]") {
  ScenarioDir dir;
  Servability servable;
  // Uniform [1000, 9000] prompts with 192 output tokens: beyond 8192 from a prompt of 8001,
  // a draw of 8000.5 or more: (9000 - 8000.5) / 8000 = 12.49%, about 12 of 100 requests.
  REQUIRE_FALSE(refusal(dir, edit_line(edit_line(kMinimalScenario, 5, "    output: {fixed: 192}"), 4,
                                       "    input: {uniform: [1000, 9000]}"),
                        {}, &servable));
  REQUIRE(servable.warnings.size() == 1);
  CHECK_THAT(servable.warnings[0], Catch::Contains("study.yaml:2:"));
  CHECK_THAT(servable.warnings[0], Catch::Contains("12.5% of the requests of class 'chat' will be rejected (about 12 of "
                                                   "stop.requests' 100): longer than the 8192-token context"));
  // Normal(7000, 1000): Q((8000.5 - 7000) / 1000) = 0.158534, about 16 of 100.
  REQUIRE_FALSE(refusal(dir, edit_line(edit_line(kMinimalScenario, 5, "    output: {fixed: 192}"), 4,
                                       "    input: {normal: {mean: 7000, std: 1000}}"),
                        {}, &servable));
  REQUIRE(servable.warnings.size() == 1);
  CHECK_THAT(servable.warnings[0], Catch::Contains("15.9% of the requests of class 'chat' will be rejected (about 16 of"));
  // Truncated instead of rejected: nothing to warn of.
  REQUIRE_FALSE(refusal(dir, edit_line(edit_line(kMinimalScenario, 5, "    output: {fixed: 192}"), 4,
                                       "    input: {normal: {mean: 7000, std: 1000}}"),
                        {"cluster.pools.0.engine.on_context_overflow=truncate"}, &servable));
  CHECK(servable.warnings.empty());
}

TEST_CASE("servability: shares beyond the context and beyond the KV cache are told apart", "[scenario][servability]") {
  ScenarioDir dir;
  Servability servable;
  // Uniform [1000, 9000] prompts, 192 outputs, a 4096-token cache. Beyond the context: a
  // prompt of 8001 or more, (9000 - 8000.5) / 8000 = 12.49%. Beyond the cache: a prompt
  // whose KV, prompt + 191, exceeds 4096, from 3906 on: (9000 - 3905.5) / 8000 = 63.68% in
  // all, so 63.68 - 12.49 = 51.19% rejected for the cache alone.
  REQUIRE_FALSE(refusal(dir, edit_line(edit_line(kMinimalScenario, 5, "    output: {fixed: 192}"), 4,
                                       "    input: {uniform: [1000, 9000]}"),
                        {"cluster.pools.0.engine.kv_cache_tokens=4096"}, &servable));
  REQUIRE(servable.warnings.size() == 1);
  CHECK_THAT(servable.warnings[0], Catch::Contains("63.7% of the requests of class 'chat' will be rejected (about 64 "
                                                   "of stop.requests' 100): 12.5% longer than the 8192-token context"));
  CHECK_THAT(servable.warnings[0], Catch::Contains("; 51.2% needing more KV blocks than a replica of pool 'main' holds, "
                                                   "256 blocks of 16 tokens (4096 tokens, engine.kv_cache_tokens)"));
}

TEST_CASE("servability: a prompt longer than a whole-prompt policy's step is refused at max_batched_tokens",
          "[scenario][servability]") {
  ScenarioDir dir;
  // Policy continuous runs a prompt (and its recompute) in one step: 5000 + 10 - 1 = 5009 KV
  // tokens exceed a 4096-token step.
  const std::string yaml = edit_line(edit_line(kMinimalScenario, 11, "      engine: {policy: continuous, max_batched_tokens: 4096}"),
                                     4, "    input: {fixed: 5000}");
  const auto e = refusal(dir, yaml);
  REQUIRE(e);
  CHECK(e->line() == 11);
  CHECK(e->key() == "cluster.pools.0.engine.max_batched_tokens");
  CHECK_THAT(e->message(), Catch::Contains("is more than policy 'continuous' runs in one step of 4096 tokens"));
  CHECK_THAT(e->message(), Catch::Contains("(sequence_exceeds_max_batched_tokens)"));
  // Chunked prefill splits the prompt over steps.
  CHECK_FALSE(refusal(dir, yaml, {"cluster.pools.0.engine.policy=chunked-prefill"}));
}

TEST_CASE("servability: the share a whole-prompt policy rejects is warned of", "[scenario][servability]") {
  ScenarioDir dir;
  Servability servable;
  // Uniform [1000, 9000] prompts, 192 outputs, policy continuous with 4096-token steps:
  // beyond the context from a prompt of 8001 (12.49%); beyond a step when prompt + 191 >
  // 4096, from 3906 on, (9000 - 3905.5) / 8000 = 63.68% in all, 51.19% for the step alone.
  REQUIRE_FALSE(refusal(dir,
                        edit_line(edit_line(edit_line(kMinimalScenario, 11,
                                                      "      engine: {policy: continuous, max_batched_tokens: 4096}"),
                                            5, "    output: {fixed: 192}"),
                                  4, "    input: {uniform: [1000, 9000]}"),
                        {}, &servable));
  REQUIRE(servable.warnings.size() == 1);
  CHECK_THAT(servable.warnings[0], Catch::Contains("63.7% of the requests of class 'chat' will be rejected (about 64 "
                                                   "of stop.requests' 100): 12.5% longer than the 8192-token context"));
  CHECK_THAT(servable.warnings[0], Catch::Contains("; 51.2% more than policy 'continuous' runs in one step of 4096 tokens"));
}

TEST_CASE("servability: what only building the run checks is refused at its line", "[scenario][servability]") {
  ScenarioDir dir;
  // The prefix cache tracks at most 2^30 blocks per replica (BlockPool::kMaxBlocks), a bound
  // the Pool checks when it is built; 2^30 + 1 blocks of 16 tokens is one too many.
  const auto e = refusal(dir, edit_line(kMinimalScenario, 11,
                                        "      engine: {policy: continuous, prefix_cache: true, "
                                        "kv_cache_tokens: 17179869200}"));
  REQUIRE(e);
  CHECK(e->line() == 11);
  CHECK(e->key() == "cluster.pools.0.engine.kv_cache_tokens");
  CHECK_THAT(e->message(), Catch::Contains("the prefix cache tracks at most 1073741824 KV blocks per replica"));
}

TEST_CASE("servability: a model that does not fit names its tp line and the smallest tp that fits",
          "[scenario][servability]") {
  ScenarioDir dir;
  dir.write("small-gpu.yaml", edit_line(servesim::testing::kTinyGpuYaml, 3, "memory_gib: 12"));
  const std::string yaml = edit_line(kMinimalScenario, 9, "      hardware: small-gpu.yaml");
  // test-gqa's weights: 32 layers x (2 x 6144^2 attention q/o + 2 x 6144 x 1024 k/v +
  // 3 x 6144 x 14336 MLP + 2 x 6144 norms) + 2 x 128256 x 6144 embeddings + 6144 = 12,850,698,240
  // parameters, 25,701,396,480 bytes in bf16.
  const Scenario s = load_scenario(dir.write("study.yaml", yaml));
  REQUIRE(s.cluster.pools[0].model.weight_bytes(Dtype::bf16) == 25701396480.0);
  // Usable: 12 GiB x 0.9 = 11,596,411,699 bytes. tp 2: half the weights, 12.85e9, exceed
  // it alone; tp 3 does not divide the 8 KV heads; tp 4: 6.43e9 of weights + the reserve
  // (1 GiB + 8192 tokens x 2 bytes x (2 x 6144 + 3 x 14336 / 4) = 1.45e9) = 7.9e9 fits.
  const auto e = refusal(dir, yaml);
  REQUIRE(e);
  CHECK(e->line() == 10);
  CHECK(e->key() == "cluster.pools.0.tp");
  CHECK_THAT(e->message(), Catch::Contains("the model does not fit: per GPU: 12 GiB"));
  CHECK_THAT(e->message(), Catch::Contains("set tp: 4, the smallest tp at which it fits (weights 5.9"));
  CHECK_FALSE(refusal(dir, yaml, {"cluster.pools.0.tp=4"}));
}

}  // namespace
}  // namespace servesim::servability_test
