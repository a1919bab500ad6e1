// Reading `vllm_bench_serve:` (sim/scenario/vllm_bench_parse.h): the options land as the
// tool's argparse reads them (defaults from vllm/benchmarks/datasets/arg_utils.py and
// serve.py), and every mistake is a ConfigError at its file, line and key.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/scenario_summary.h"

using servesim::testing::ScenarioDir;

namespace servesim::vllm_bench_parse_test {
namespace {

// A one-class scenario whose class body (lines 3 on, indented 4) is `body`.
std::string scenario(const std::string& body) {
  return "workload:\n"
         "  - class: bench\n" +
         body +
         "cluster:\n"
         "  pools:\n"
         "    - model: tiny-model.yaml\n"
         "      hardware: tiny-gpu.yaml\n"
         "      tp: 1\n"
         "      engine: {policy: continuous}\n"
         "  router: round-robin\n";
}

VllmBenchServeArgs load_args(const ScenarioDir& dir, const std::string& body) {
  const Scenario s = load_scenario(dir.write("s.yaml", scenario(body)));
  REQUIRE(s.workload.size() == 1);
  REQUIRE(s.workload[0].trace.has_value());
  REQUIRE(s.workload[0].trace->vllm_bench_serve.has_value());
  return *s.workload[0].trace->vllm_bench_serve;
}

ConfigError load_error(const ScenarioDir& dir, const std::string& body) {
  try {
    load_scenario(dir.write("s.yaml", scenario(body)));
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("the scenario loaded");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("vllm bench serve parse: defaults are the tool's", "[scenario]") {
  ScenarioDir dir;
  const VllmBenchServeArgs a = load_args(dir, "    vllm_bench_serve: \"\"\n");
  CHECK(a.dataset == VllmBenchServeArgs::Dataset::random);
  CHECK(a.num_prompts == 1000);
  CHECK(a.seed == 0);
  CHECK_FALSE(a.request_rate_per_s.has_value());  // inf
  CHECK(a.burstiness == 1.0);
  CHECK_FALSE(a.max_concurrency.has_value());
  CHECK(a.random_input_len == 1024);
  CHECK(a.random_output_len == 128);
  CHECK(a.random_range_ratio == 0.0);
  CHECK(a.random_prefix_len == 0);
  CHECK(a.prefix_repetition_prefix_len == 256);
  CHECK(a.prefix_repetition_suffix_len == 256);
  CHECK(a.prefix_repetition_num_prefixes == 10);
  CHECK(a.prefix_repetition_output_len == 128);
  CHECK(a.num_warmups == 0);
  CHECK(a.ready_check_timeout_s == 0);
  CHECK(a.special_tokens == 0);
}

TEST_CASE("vllm bench serve parse: a pasted command line in every spelling", "[scenario]") {
  ScenarioDir dir;
  const VllmBenchServeArgs a = load_args(
      dir,
      "    vllm_bench_serve: >-\n"
      "      vllm bench serve --model 'meta-llama/Llama-3.1-8B-Instruct' --dataset-name random\n"
      "      --random-input-len 1024 --random_output_len=256 --random-range-ratio 0.1\n"
      "      --random-prefix-len 256 --num-prompts 500 --request-rate 8 --burstiness 0.5\n"
      "      --max-concurrency 64 --seed 3 --save-result --metadata tp=1 pp=1 --ignore-eos\n"
      "      --num-warmups 2 --ready-check-timeout-sec 600 --extra-body '{\"a\": 1}'\n");
  CHECK(a.dataset == VllmBenchServeArgs::Dataset::random);
  CHECK(a.random_input_len == 1024);
  CHECK(a.random_output_len == 256);
  CHECK(a.random_range_ratio == 0.1);
  CHECK(a.random_prefix_len == 256);
  CHECK(a.num_prompts == 500);
  CHECK(a.request_rate_per_s == std::optional<double>(8.0));
  CHECK(a.burstiness == 0.5);
  CHECK(a.max_concurrency == std::optional<std::int64_t>(64));
  CHECK(a.seed == 3);
  CHECK(a.num_warmups == 2);
  CHECK(a.ready_check_timeout_s == 600);

  // Backslash-newline continuations, as pasted from a shell script; --request-rate inf.
  const VllmBenchServeArgs b = load_args(dir,
                                         "    vllm_bench_serve: \"--dataset-name prefix_repetition \\\\\\n"
                                         "      --prefix-repetition-num-prefixes 4 --request-rate inf\"\n");
  CHECK(b.dataset == VllmBenchServeArgs::Dataset::prefix_repetition);
  CHECK(b.prefix_repetition_num_prefixes == 4);
  CHECK_FALSE(b.request_rate_per_s.has_value());

  // --input-len and --output-len map onto the dataset's own, as serve.py does.
  const VllmBenchServeArgs c = load_args(dir, "    vllm_bench_serve: \"--input-len 2000 --output-len 50\"\n");
  CHECK(c.random_input_len == 2000);
  CHECK(c.random_output_len == 50);
  CHECK(c.prefix_repetition_output_len == 50);
}

TEST_CASE("vllm bench serve parse: the mapping form with servesim's own keys", "[scenario]") {
  ScenarioDir dir;
  dir.write("lengths.csv", "num_prefill_tokens,num_decode_tokens\n100,20\n");
  const VllmBenchServeArgs a = load_args(dir,
                                         "    vllm_bench_serve:\n"
                                         "      dataset_name: sharegpt\n"
                                         "      --num-prompts: 20\n"
                                         "      disable-shuffle: true\n"
                                         "      no_oversample: false\n"
                                         "      special_tokens: 1\n"
                                         "      lengths: lengths.csv\n"
                                         "      args: \"--max-concurrency 4 --dataset-path ShareGPT_V3.json\"\n");
  CHECK(a.dataset == VllmBenchServeArgs::Dataset::sharegpt);
  CHECK(a.num_prompts == 20);
  CHECK(a.disable_shuffle);
  CHECK_FALSE(a.no_oversample);
  CHECK(a.special_tokens == 1);
  CHECK(a.max_concurrency == std::optional<std::int64_t>(4));
  CHECK(a.lengths_path == dir.path("lengths.csv"));
  const Scenario s = load_scenario(dir.path("s.yaml"));
  CHECK_THAT(describe_scenario(s), Catch::Contains("vllm bench serve sharegpt"));
}

TEST_CASE("vllm bench serve parse: each mistake names its file - line and key", "[scenario]") {
  ScenarioDir dir;
  struct Bad {
    const char* what;
    std::string body;
    int line;
    const char* key;
    const char* message;
  };
  const std::vector<Bad> bad = {
      {"unknown option, with the nearest", "    vllm_bench_serve: \"--random-input-lenn 5\"\n", 3,
       "workload.0.vllm_bench_serve", "did you mean '--random-input-len'?"},
      {"unknown option in the mapping form", "    vllm_bench_serve:\n      random_inptu_len: 5\n", 4,
       "workload.0.vllm_bench_serve.random_inptu_len", "did you mean '--random-input-len'?"},
      {"an option twice", "    vllm_bench_serve: \"--seed 1 --seed 2\"\n", 3, "workload.0.vllm_bench_serve",
       "--seed is given twice"},
      {"a value missing", "    vllm_bench_serve: \"--request-rate --seed 1\"\n", 3, "workload.0.vllm_bench_serve",
       "--request-rate needs a value"},
      {"a word that is no option", "    vllm_bench_serve: \"python benchmark_serving.py --seed 1\"\n", 3,
       "workload.0.vllm_bench_serve", "expected an option starting with --, got 'python'"},
      {"a malformed number", "    vllm_bench_serve: \"--num-prompts 1e3\"\n", 3, "workload.0.vllm_bench_serve",
       "--num-prompts expects a whole number, got '1e3'"},
      {"range ratio 1", "    vllm_bench_serve: \"--random-range-ratio 1.0\"\n", 3, "workload.0.vllm_bench_serve",
       "must be in [0, 1)"},
      {"rate 0", "    vllm_bench_serve: \"--request-rate 0\"\n", 3, "workload.0.vllm_bench_serve",
       "--request-rate must be > 0"},
      {"an unmodelled option", "    vllm_bench_serve: \"--lora-modules a b\"\n", 3, "workload.0.vllm_bench_serve",
       "--lora-modules sends requests to LoRA adapters, which servesim does not model"},
      {"an unmodelled dataset", "    vllm_bench_serve: \"--dataset-name sonnet\"\n", 3,
       "workload.0.vllm_bench_serve", "sonnet is not modelled"},
      {"sharegpt without lengths", "    vllm_bench_serve: \"--dataset-name sharegpt --dataset-path x.json\"\n", 3,
       "workload.0.vllm_bench_serve", "lengths: FILE.csv"},
      {"dataset-path with random", "    vllm_bench_serve: \"--dataset-path x.json\"\n", 3,
       "workload.0.vllm_bench_serve", "the random dataset takes no --dataset-path"},
      {"ramp-up beside a rate",
       "    vllm_bench_serve: \"--ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 5 --request-rate 3\"\n",
       3, "workload.0.vllm_bench_serve", "remove --request-rate"},
      {"fewer prompts than prefixes",
       "    vllm_bench_serve: \"--dataset-name prefix_repetition --num-prompts 5 --prefix-repetition-num-prefixes 10\"\n",
       3, "workload.0.vllm_bench_serve", "is below --prefix-repetition-num-prefixes 10"},
      {"a zero-token random prompt", "    vllm_bench_serve: \"--random-input-len 1 --random-range-ratio 0.5\"\n", 3,
       "workload.0.vllm_bench_serve", "can draw a prompt of 0 tokens"},
      {"an unterminated quote", "    vllm_bench_serve: \"--model 'x\"\n", 3, "workload.0.vllm_bench_serve",
       "unterminated ' quote"},
      {"arrival beside it", "    arrival: {process: poisson, rate: 1}\n    vllm_bench_serve: \"\"\n", 3,
       "workload.0.arrival", "cannot be combined with 'vllm_bench_serve'"},
      {"a switch with a value", "    vllm_bench_serve: \"--disable-shuffle=yes\"\n", 3, "workload.0.vllm_bench_serve",
       "--disable-shuffle takes no value"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.what);
    const ConfigError e = load_error(dir, b.body);
    CHECK(e.file() == dir.path("s.yaml"));
    CHECK(e.line() == b.line);
    CHECK(e.key() == b.key);
    CHECK_THAT(e.message(), Catch::Contains(b.message));
  }
}

}  // namespace servesim::vllm_bench_parse_test
