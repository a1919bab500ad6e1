// Loading valid scenarios: every key lands in the right field, in the right unit, and
// every default is the documented one (docs/scenario.md).
#include "sim/scenario/scenario_loader.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"

using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::scenario_loader_test {
namespace {

constexpr const char* kFullScenario = R"(name: doc-assistant
seed: 7
stop: {requests: 10000, time: 1h}
workload:
  - class: interactive
    arrival: {process: poisson, rate: 4}
    input:  {lognormal: {median: 2000, sigma: 0.6}}
    output: {fixed: 400}
    slo: {ttft: 2s, itl: 50ms, tpot: 40ms, e2el: 1.5m}
    priority: 1
  - class: chat
    arrival: {process: gamma, rate: 2.5, cv: 3}
    input: {uniform: [100, 300], max: 250}
    output: {normal: {mean: 200, std: 20}, min: 1}
  - class: agents
    arrival:
      process: closed
      concurrency: 8
      think_time: {exponential: {mean: 5s}}
    input: {exponential: {mean: 500}}
    output: 64
  - class: batch
    trace: {format: azure, path: conv.csv, speedup: 2.5}
cluster:
  pools:
    - name: main
      replicas: 2
      model: tiny-model.yaml
      hardware: tiny-gpu.yaml
      tp: 2
      weights: fp8
      kv_dtype: fp8
      engine:
        policy: continuous
        max_num_seqs: 128
        max_batched_tokens: 4096
        block_size: 32
        prefix_cache: true
        kv_cache_tokens: 500000
        gpu_memory_utilization: 0.85
      cost_model: {linear: {base: 1ms, per_token: 0.1ms}}
      classes: [interactive, chat, agents]
    - name: offline
      model: tiny-model.yaml
      hardware: tiny-gpu.yaml
      classes: [batch]
      cost_model: {constant: {step: 10ms}}
  router: round-robin
outputs: {requests_csv: false, chrome_trace: true}
)";

TEST_CASE("scenario loader: a full scenario loads every key into the right field and unit",
          "[scenario]") {
  ScenarioDir dir;
  const std::string path = dir.write("full.yaml", kFullScenario);
  const Scenario s = load_scenario(path);

  CHECK(s.name == "doc-assistant");
  CHECK(s.source_file == path);
  CHECK(s.seed == 7);
  REQUIRE(s.stop.requests);
  CHECK(*s.stop.requests == 10000);
  REQUIRE(s.stop.time_ns);
  CHECK(*s.stop.time_ns == 3'600'000'000'000LL);  // 1h = 3600 s
  REQUIRE(s.workload.size() == 4);

  const ClassSpec& interactive = s.workload[0];
  CHECK(interactive.name == "interactive");
  REQUIRE(interactive.arrival);
  CHECK(interactive.arrival->process == ArrivalSpec::Process::poisson);
  CHECK(interactive.arrival->rate_per_s == 4.0);
  REQUIRE(interactive.input);
  CHECK(interactive.input->kind == DistSpec::Kind::lognormal);
  CHECK(interactive.input->a == 2000.0);
  CHECK(interactive.input->b == 0.6);
  REQUIRE(interactive.output);
  CHECK(interactive.output->kind == DistSpec::Kind::fixed);
  CHECK(interactive.output->a == 400.0);
  CHECK(interactive.slo.ttft_ns == 2'000'000'000LL);
  CHECK(interactive.slo.itl_ns == 50'000'000LL);
  CHECK(interactive.slo.tpot_ns == 40'000'000LL);
  CHECK(interactive.slo.e2el_ns == 90'000'000'000LL);  // 1.5 minutes
  CHECK(interactive.priority == 1);
  CHECK_FALSE(interactive.trace);

  const ClassSpec& chat = s.workload[1];
  CHECK(chat.arrival->process == ArrivalSpec::Process::gamma);
  CHECK(chat.arrival->rate_per_s == 2.5);
  CHECK(chat.arrival->cv == 3.0);
  CHECK(chat.input->kind == DistSpec::Kind::uniform);
  CHECK(chat.input->a == 100.0);
  CHECK(chat.input->b == 300.0);
  CHECK_FALSE(chat.input->min);
  REQUIRE(chat.input->max);
  CHECK(*chat.input->max == 250.0);
  CHECK(chat.output->kind == DistSpec::Kind::normal);
  CHECK(chat.output->a == 200.0);
  CHECK(chat.output->b == 20.0);
  CHECK(chat.output->min == 1.0);
  CHECK(chat.priority == 0);

  const ClassSpec& agents = s.workload[2];
  CHECK(agents.arrival->process == ArrivalSpec::Process::closed);
  CHECK(agents.arrival->concurrency == 8);
  REQUIRE(agents.arrival->think_time_s);
  CHECK(agents.arrival->think_time_s->kind == DistSpec::Kind::exponential);
  CHECK(agents.arrival->think_time_s->a == 5.0);  // seconds
  CHECK(agents.input->kind == DistSpec::Kind::exponential);
  CHECK(agents.input->a == 500.0);
  CHECK(agents.output->kind == DistSpec::Kind::fixed);  // bare number = fixed
  CHECK(agents.output->a == 64.0);

  const ClassSpec& batch = s.workload[3];
  REQUIRE(batch.trace);
  CHECK(batch.trace->format == "azure");
  CHECK(batch.trace->speedup == 2.5);
  // Resolved next to the scenario, since it is not under the working directory.
  CHECK(std::filesystem::equivalent(batch.trace->path, dir.path("conv.csv")));
  CHECK_FALSE(batch.arrival);
  CHECK_FALSE(batch.input);

  REQUIRE(s.cluster.pools.size() == 2);
  CHECK(s.cluster.router == "round-robin");
  const PoolConfig& main = s.cluster.pools[0];
  CHECK(main.name == "main");
  CHECK(main.replicas == 2);
  CHECK(main.model.name == "test-gqa");
  CHECK(main.model.num_attention_heads == 48);
  CHECK(main.hardware.name == "tiny-gpu");
  CHECK(main.deployment.tp == 2);
  CHECK(main.deployment.pp == 1);
  CHECK(main.deployment.weights == Dtype::fp8);
  CHECK(main.deployment.kv == Dtype::fp8);
  CHECK(main.engine.policy == "continuous");
  CHECK(main.engine.max_num_seqs == 128);
  CHECK(main.engine.max_batched_tokens == 4096);
  CHECK(main.engine.block_size == 32);
  CHECK(main.engine.prefix_cache);
  CHECK(main.engine.kv_cache_tokens == 500000);
  CHECK(main.engine.gpu_memory_utilization == 0.85);
  CHECK(main.cost_model.kind == "linear");
  CHECK(main.cost_model.linear_base_ns == 1'000'000);
  CHECK(main.cost_model.linear_per_token_ns == Approx(100'000.0));  // 0.1 ms
  CHECK(main.classes == std::vector<std::string>{"interactive", "chat", "agents"});

  const PoolConfig& offline = s.cluster.pools[1];
  CHECK(offline.name == "offline");
  CHECK(offline.replicas == 1);
  CHECK(offline.deployment.tp == 1);
  CHECK(offline.deployment.weights == Dtype::bf16);
  CHECK(offline.engine.policy == "chunked-prefill");
  CHECK(offline.engine.max_num_seqs == 256);
  CHECK(offline.engine.max_batched_tokens == 8192);
  CHECK(offline.engine.block_size == 16);
  CHECK_FALSE(offline.engine.prefix_cache);
  CHECK_FALSE(offline.engine.kv_cache_tokens);
  CHECK(offline.engine.gpu_memory_utilization == 0.9);
  CHECK(offline.cost_model.kind == "constant");
  CHECK(offline.cost_model.constant_step_ns == 10'000'000);
  CHECK(offline.classes == std::vector<std::string>{"batch"});

  CHECK_FALSE(s.outputs.requests_csv);
  CHECK(s.outputs.chrome_trace);
}

TEST_CASE("scenario loader: left-out keys take the documented defaults", "[scenario]") {
  ScenarioDir dir;
  // No name, seed, class name, router, cost model or outputs. (A synthetic class needs a stop.)
  const std::string path = dir.write("my-study.yaml", R"(workload:
  - arrival: {rate: 1}
    input: 10
    output: 5
cluster:
  pools:
    - {model: tiny-model.yaml, hardware: tiny-gpu.yaml}
stop: {requests: 10}
)");
  const Scenario s = load_scenario(path);
  CHECK(s.name == "my-study");  // the file's stem
  CHECK(s.seed == 0);
  CHECK(s.stop.requests == 10);
  CHECK_FALSE(s.stop.time_ns);
  REQUIRE(s.workload.size() == 1);
  CHECK(s.workload[0].name == "default");
  CHECK(s.workload[0].arrival->process == ArrivalSpec::Process::poisson);
  CHECK(s.workload[0].arrival->rate_per_s == 1.0);
  CHECK(s.workload[0].input->kind == DistSpec::Kind::fixed);
  CHECK(s.workload[0].input->a == 10.0);
  CHECK(s.cluster.router == "least-outstanding");
  REQUIRE(s.cluster.pools.size() == 1);
  CHECK(s.cluster.pools[0].name == "main");
  CHECK(s.cluster.pools[0].cost_model.kind == "roofline");
  CHECK(s.cluster.pools[0].classes.empty());
  CHECK(s.outputs.requests_csv);
  CHECK_FALSE(s.outputs.chrome_trace);
}

TEST_CASE("scenario loader: a synthetic class without a stop is an error - not an endless run", "[scenario]") {
  ScenarioDir dir;
  const std::string path = dir.write("endless.yaml", R"(workload:
  - {arrival: {rate: 1}, input: 10, output: 5}
cluster:
  pools:
    - {model: tiny-model.yaml, hardware: tiny-gpu.yaml}
)");
  try {
    load_scenario(path);
    FAIL("no ConfigError");
  } catch (const servesim::ConfigError& e) {
    CHECK_THAT(e.message(), Catch::Contains("set stop.requests or stop.time"));
  }
}

TEST_CASE("scenario loader: unnamed pools are numbered when there are several", "[scenario]") {
  ScenarioDir dir;
  const std::string path = dir.write("two.yaml", R"(workload:
  - {arrival: {rate: 1}, input: 10, output: 5}
cluster:
  pools:
    - {model: tiny-model.yaml, hardware: tiny-gpu.yaml}
    - {model: tiny-model.yaml, hardware: tiny-gpu.yaml, replicas: 3}
stop: {requests: 10}
)");
  const Scenario s = load_scenario(path);
  REQUIRE(s.cluster.pools.size() == 2);
  CHECK(s.cluster.pools[0].name == "pool0");
  CHECK(s.cluster.pools[1].name == "pool1");
  CHECK(s.cluster.pools[1].replicas == 3);
}

TEST_CASE("scenario loader: a length-only trace takes its arrivals from `arrival`", "[scenario]") {
  ScenarioDir dir;
  dir.write("lengths.csv", "num_prefill_tokens,num_decode_tokens\n100,20\n");
  const std::string path = dir.write("lengths.yaml", R"(workload:
  - class: sharegpt
    trace: {format: lengths, path: lengths.csv}
    arrival: {process: constant, rate: 10}
cluster:
  pools:
    - {model: tiny-model.yaml, hardware: tiny-gpu.yaml, cost_model: roofline}
stop: {requests: 10}
)");
  const Scenario s = load_scenario(path);
  REQUIRE(s.workload[0].trace);
  CHECK(s.workload[0].trace->format == "lengths");
  REQUIRE(s.workload[0].arrival);
  CHECK(s.workload[0].arrival->process == ArrivalSpec::Process::constant);
  CHECK(s.workload[0].arrival->rate_per_s == 10.0);
  CHECK_FALSE(s.workload[0].input);
}

TEST_CASE("scenario loader: the minimal test scenario is valid", "[scenario]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write("minimal.yaml", kMinimalScenario));
  CHECK(s.workload.size() == 1);
  CHECK(s.cluster.pools.size() == 1);
  CHECK(s.cluster.pools[0].engine.policy == "continuous");
}

TEST_CASE("scenario loader: an empirical distribution resolves its file beside the scenario",
          "[scenario]") {
  ScenarioDir dir;
  dir.write("lengths.csv", "prompt\n10\n20\n");
  const std::string path = dir.write("emp.yaml", R"(workload:
  - arrival: {rate: 1}
    input: {empirical: {path: lengths.csv, column: prompt}, min: 1, max: 4096}
    output: {uniform: [1, 9]}
cluster:
  pools:
    - {model: tiny-model.yaml, hardware: tiny-gpu.yaml}
stop: {requests: 10}
)");
  const Scenario s = load_scenario(path);
  const DistSpec& input = *s.workload[0].input;
  CHECK(input.kind == DistSpec::Kind::empirical);
  CHECK(std::filesystem::equivalent(input.path, dir.path("lengths.csv")));
  CHECK(input.column == "prompt");
  CHECK(input.min == 1.0);
  CHECK(input.max == 4096.0);
}

TEST_CASE("scenario loader: tp above the KV heads is fine when it is a multiple of them",
          "[scenario]") {
  // 48 attention heads / 16 = 3 per GPU; 8 KV heads replicated twice (vLLM does the same).
  ScenarioDir dir;
  const Scenario s =
      load_scenario(dir.write("tp.yaml", kMinimalScenario), {"cluster.pools.0.tp=16"});
  CHECK(s.cluster.pools[0].deployment.tp == 16);
  CHECK(s.cluster.pools[0].deployment.gpus() == 16);
}

TEST_CASE("scenario loader: bundled models and hardware are found by name", "[scenario]") {
  ScenarioDir dir;
  const std::string yaml = servesim::testing::edit_line(
      servesim::testing::edit_line(kMinimalScenario, 8, "    - model: llama-3-8b"), 9,
      "      hardware: h100-sxm");
  const Scenario s = load_scenario(dir.write("bundled.yaml", yaml));
  const PoolConfig& pool = s.cluster.pools[0];
  CHECK(pool.model.name == "llama-3-8b");
  CHECK(pool.model.num_layers == 32);  // Meta-Llama-3-8B config.json: num_hidden_layers
  CHECK(pool.model.num_kv_heads == 8);
  CHECK(pool.hardware.name == "h100-sxm");
}

TEST_CASE("scenario loader: every bundled scenario in scenarios/ is valid", "[scenario]") {
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SERVESIM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    CHECK_NOTHROW(load_scenario(entry.path().string()));
    ++checked;
  }
  CHECK(checked >= 1);
}

}  // namespace
}  // namespace servesim::scenario_loader_test
