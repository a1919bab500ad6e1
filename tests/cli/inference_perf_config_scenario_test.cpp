// An inference-perf shared_prefix config run through servesim: the prefix-cache hits the
// tool's prompt order produces, worked out by hand.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"

namespace inference_perf_config_scenario_test {

using namespace servesim::testing;

namespace {

// 4 groups x 5 questions; system prompt 100 tokens, question 30, output 20. Two concurrent
// stages of 20 requests, one in flight at a time, so every request finds the cache as the
// ones before it left it.
const char* kConfig = R"(load:
  type: concurrent
  interval: 1
  stages:
  - {num_requests: 20, concurrency_level: 1}
  - {num_requests: 20, concurrency_level: 1}
api: {type: completion, streaming: true}
server: {type: vllm, model_name: meta-llama/Meta-Llama-3-8B, base_url: http://localhost:8000, ignore_eos: true}
tokenizer: {pretrained_model_name_or_path: meta-llama/Meta-Llama-3-8B}
data:
  type: shared_prefix
  shared_prefix:
    num_groups: 4
    num_prompts_per_group: 5
    system_prompt_len: 100
    question_len: 30
    output_len: 20
report:
  request_lifecycle: {summary: true, per_stage: true, per_request: true}
)";

const char* kScenario = R"(name: ip-config
seed: 3
workload:
  - class: ip
    trace: {format: inference-perf-config, path: config.yaml}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      tp: 1
      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 8192, block_size: 16, prefix_cache: true}
outputs: {requests_csv: true}
)";

}  // namespace

TEST_CASE("inference-perf config scenario: each group misses once and stage 1 repeats stage 0's prompts whole",
          "[cli][prefix][inference-perf-config]") {
  TempDir dir("ip-config");
  dir.write("config.yaml", kConfig);
  const auto scenario = dir.write("scenario.yaml", kScenario);
  const CliResult r = run_cli("run " + scenario.string() + " --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json s = nlohmann::json::parse(read_file(dir.path / "out" / "summary.json"));
  std::vector<CsvRequest> rows = parse_requests_csv(read_file(dir.path / "out" / "requests.csv"));
  REQUIRE(rows.size() == 40);
  std::sort(rows.begin(), rows.end(), [](const CsvRequest& a, const CsvRequest& b) { return a.id < b.id; });

  // Stage 0 sends the 20 prompts (G x P) once each in shuffled order: the first of each
  // group computes its system prompt (0 cached), the other 16 find floor(100 / 16) x 16 = 96
  // tokens of it. Stage 1 restarts at data index 0: the same 20 prompts again, each cached
  // whole in its full blocks, floor(130 / 16) x 16 = 128 tokens.
  int misses = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    REQUIRE(rows[i].prompt_tokens == 130);
    REQUIRE(rows[i].outcome == "completed");
    if (i < 20) {
      if (rows[i].cached_prompt_tokens == 0) ++misses;
      else CHECK(rows[i].cached_prompt_tokens == 96);
    } else {
      CHECK(rows[i].cached_prompt_tokens == 128);
    }
  }
  CHECK(misses == 4);
  // (16 x 96 + 20 x 128) / (40 x 130) = 4096 / 5200.
  CHECK(s["cached_input_tokens"] == 16 * 96 + 20 * 128);
  CHECK(s["prefix_cache_hit_rate"].get<double>() == Approx(4096.0 / 5200.0).epsilon(1e-12));
}

TEST_CASE("inference-perf config scenario: an unsupported data type fails validation with the config's line",
          "[cli][inference-perf-config]") {
  TempDir dir("ip-config-bad");
  dir.write("config.yaml", "data:\n  type: shareGPT\nload:\n  stages: [{rate: 1, duration: 10}]\n");
  const auto scenario = dir.write("scenario.yaml", kScenario);
  const CliResult r = run_cli("validate " + scenario.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("config.yaml:2"));
  CHECK_THAT(r.output, Catch::Contains("data.type"));
  CHECK_THAT(r.output, Catch::Contains("shared_prefix, random, synthetic"));
}

TEST_CASE("inference-perf config scenario: the bundled shared-prefix example keeps the invariants and its repeats hit",
          "[cli][prefix][inference-perf-config]") {
  TempDir dir("ip-config-example");
  const CliResult r =
      run_cli("run scenarios/inference-perf/shared-prefix.yaml --check-invariants --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("invariants (docs/INVARIANTS.md): all held") != std::string::npos);
  std::vector<CsvRequest> rows = parse_requests_csv(read_file(dir.path / "out" / "requests.csv"));
  std::sort(rows.begin(), rows.end(), [](const CsvRequest& a, const CsvRequest& b) { return a.id < b.id; });
  // Stage 0: int(1 x 30) = 30 requests, the last due at exactly 30 s; stage 1: int(2 x 30) = 60,
  // starting after stage 0 drained, the 15 s interval and the 1 s lead, so after 46 s.
  REQUIRE(rows.size() == 90);
  CHECK(rows[29].arrival_ns == 30'000'000'000);
  CHECK(rows[30].arrival_ns > 46'000'000'000);
  // Prompts of 100 + 50 tokens. Stage 1's first 30 repeat stage 0's prompts whole:
  // floor(150 / 16) x 16 = 144 cached. Every other request hits its group's system prompt,
  // floor(100 / 16) x 16 = 96 tokens, or is its group's first (0): at most 10 such.
  int misses = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    REQUIRE(rows[i].prompt_tokens == 150);
    if (i >= 30 && i < 60) {
      CHECK(rows[i].cached_prompt_tokens == 144);
    } else {
      CHECK((rows[i].cached_prompt_tokens == 0 || rows[i].cached_prompt_tokens == 96));
      misses += rows[i].cached_prompt_tokens == 0;
    }
  }
  CHECK(misses >= 1);
  CHECK(misses <= 10);
}

}  // namespace inference_perf_config_scenario_test
