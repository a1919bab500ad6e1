// Malformed scenarios: each row edits one line of a small valid scenario and states the
// line, the dotted key and the words the ConfigError must carry. Lines are 1-based, as an
// editor shows them (yaml-cpp counts from 0).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::scenario_errors_test {
namespace {

struct BadScenario {
  const char* what;
  int edit_at;           // line of kMinimalScenario replaced ...
  const char* new_text;  // ... by this (several lines, or "" to delete it)
  int line;              // expected ConfigError::line()
  const char* key;       // expected ConfigError::key() ("" = no key)
  const char* message;   // expected part of ConfigError::message()
};

const std::vector<BadScenario> kBadScenarios = {
    // Misspelt keys, with the nearest valid key suggested.
    {"misspelt top-level key", 1, "workloads:", 1, "workloads", "did you mean 'workload'?"},
    {"misspelt class key", 2, "  - clas: chat", 2, "workload.0.clas", "did you mean 'class'?"},
    {"misspelt arrival key", 3, "    arrival: {process: poisson, rat: 4}", 3,
     "workload.0.arrival.rat", "unknown key 'rat'; did you mean 'rate'?"},
    {"misspelt pool key", 10, "      replica: 2", 10, "cluster.pools.0.replica",
     "did you mean 'replicas'?"},
    {"misspelt engine key", 11, "      engine: {polcy: continuous}", 11,
     "cluster.pools.0.engine.polcy", "unknown key 'polcy'; did you mean 'policy'?"},
    {"unknown key with nothing close lists the valid keys", 10, "      colour: blue", 10,
     "cluster.pools.0.colour", "valid keys: name, replicas, model, hardware, tp"},
    {"duplicate key", 3, "    arrival: {process: poisson, rate: 4, rate: 5}", 3,
     "workload.0.arrival.rate", "duplicate key 'rate'"},
    // Wrong types.
    {"rate given as a word", 3, "    arrival: {process: poisson, rate: fast}", 3,
     "workload.0.arrival.rate", "expected a number, got 'fast'"},
    {"replicas given as a list", 10, "      replicas: [1, 2]", 10, "cluster.pools.0.replicas",
     "expected a whole number, got a list"},
    {"replicas given as a fraction", 10, "      replicas: 2.5", 10, "cluster.pools.0.replicas",
     "expected a whole number, got '2.5'"},
    {"prefix_cache given as a word", 11, "      engine: {prefix_cache: maybe}", 11,
     "cluster.pools.0.engine.prefix_cache", "expected true or false, got 'maybe'"},
    {"seed given as a word", 1, "seed: abc\nworkload:", 1, "seed",
     "expected a whole number, got 'abc'"},
    {"rate with no value points at its key, not the next line", 3, "    arrival:\n      rate:", 4,
     "workload.0.arrival.rate", "expected a number, got nothing"},
    // Impossible values.
    {"negative rate", 3, "    arrival: {process: poisson, rate: -2}", 3, "workload.0.arrival.rate",
     "must be > 0, got -2"},
    {"zero rate", 3, "    arrival: {process: poisson, rate: 0}", 3, "workload.0.arrival.rate",
     "must be > 0, got 0"},
    {"NaN rate", 3, "    arrival: {process: poisson, rate: .nan}", 3, "workload.0.arrival.rate",
     "must be a finite number"},
    {"infinite rate", 3, "    arrival: {process: poisson, rate: .inf}", 3,
     "workload.0.arrival.rate", "must be a finite number"},
    {"negative sigma", 4, "    input: {lognormal: {median: 100, sigma: -0.5}}", 4,
     "workload.0.input.lognormal.sigma", "sigma must be >= 0, got -0.5"},
    {"uniform min above max", 5, "    output: {uniform: [50, 10]}", 5, "workload.0.output.uniform",
     "uniform min 50 is greater than max 10"},
    {"prompt of zero tokens", 4, "    input: {fixed: 0}", 4, "workload.0.input",
     "at least 1 input token"},
    {"zero replicas", 10, "      replicas: 0", 10, "cluster.pools.0.replicas",
     "must be >= 1, got 0"},
    {"zero max_num_seqs", 11, "      engine: {max_num_seqs: 0}", 11,
     "cluster.pools.0.engine.max_num_seqs", "must be >= 1, got 0"},
    {"block_size not a power of two", 11, "      engine: {block_size: 24}", 11,
     "cluster.pools.0.engine.block_size", "must be a power of two"},
    {"zero block_size", 11, "      engine: {block_size: 0}", 11,
     "cluster.pools.0.engine.block_size", "must be >= 1"},
    {"gpu_memory_utilization above 1", 11, "      engine: {gpu_memory_utilization: 1.5}", 11,
     "cluster.pools.0.engine.gpu_memory_utilization", "must be in (0, 1]"},
    {"gpu_memory_utilization of 0", 11, "      engine: {gpu_memory_utilization: 0}", 11,
     "cluster.pools.0.engine.gpu_memory_utilization", "must be in (0, 1]"},
    {"zero tp", 10, "      tp: 0", 10, "cluster.pools.0.tp", "must be >= 1, got 0"},
    {"tp not dividing the attention heads", 10, "      tp: 5", 10, "cluster.pools.0.tp",
     "tp 5 does not divide the 48 attention heads of 'test-gqa'"},
    {"tp not dividing the KV heads", 10, "      tp: 3", 10, "cluster.pools.0.tp",
     "tp 3 does not divide the 8 KV heads of 'test-gqa'"},
    {"tp above the KV heads but not a multiple", 10, "      tp: 12", 10, "cluster.pools.0.tp",
     "tp 12 is not a multiple of the 8 KV heads"},
    {"zero concurrency", 3, "    arrival: {process: closed, concurrency: 0}", 3,
     "workload.0.arrival.concurrency", "must be >= 1, got 0"},
    {"trace speedup of 0", 3, "    trace: {format: azure, path: conv.csv, speedup: 0}", 3,
     "workload.0.trace.speedup", "must be > 0"},
    {"negative seed", 1, "seed: -1\nworkload:", 1, "seed", "must be >= 0"},
    {"stop time of zero", 13, "stop: {time: 0s}", 13, "stop.time", "must be > 0"},
    {"bad duration", 5, "    output: {fixed: 10}\n    slo: {ttft: 5 parsecs}", 6,
     "workload.0.slo.ttft", "bad duration '5 parsecs'"},
    // Unknown names.
    {"misspelt policy", 11, "      engine: {policy: continous}", 11,
     "cluster.pools.0.engine.policy",
     "unknown scheduling policy 'continous'; did you mean 'continuous'?"},
    {"unknown policy lists the policies", 11, "      engine: {policy: magic-fifo}", 11,
     "cluster.pools.0.engine.policy", "valid policies: "},
    {"misspelt router", 12, "  router: round-robbin", 12, "cluster.router",
     "did you mean 'round-robin'?"},
    {"misspelt arrival process", 3, "    arrival: {process: poison, rate: 4}", 3,
     "workload.0.arrival.process", "unknown arrival process 'poison'; did you mean 'poisson'?"},
    {"unknown model", 8, "    - model: llama-9-zillion", 8, "cluster.pools.0.model",
     "unknown model 'llama-9-zillion'"},
    {"misspelt hardware name: the message servesim step gives too", 9, "      hardware: h10", 9,
     "cluster.pools.0.hardware", "unknown hardware 'h10': neither a file nor a bundled name; did you mean 'h100'?"},
    {"unknown hardware lists the bundled profiles with the short names", 9, "      hardware: tpu-v5e", 9,
     "cluster.pools.0.hardware", "bundled names: a100-80g-pcie, a100-80g-sxm, "},
    {"unknown weight format", 10, "      weights: fp4", 10, "cluster.pools.0.weights",
     "unknown weight format 'fp4'"},
    {"KV cache in int4", 10, "      kv_dtype: int4", 10, "cluster.pools.0.kv_dtype",
     "unknown KV-cache format 'int4'"},
    {"misspelt cost model", 10, "      cost_model: rooflines", 10, "cluster.pools.0.cost_model",
     "did you mean 'roofline'?"},
    {"pool serving an unknown class", 10, "      classes: [chta]", 10, "cluster.pools.0.classes.0",
     "unknown class 'chta'; did you mean 'chat'?"},
    // Structure.
    {"argument applying to another process", 3, "    arrival: {process: poisson, rate: 4, cv: 2}",
     3, "workload.0.arrival.cv", "'cv' does not apply to process 'poisson'"},
    {"missing model", 8, "    - replicas: 1", 8, "cluster.pools.0", "missing required key 'model'"},
    {"class without input", 4, "", 2, "workload.0", "missing required key 'input'"},
    {"table cost model whose file is missing", 10, "      cost_model: {table: no-such-table.csv}", 10,
     "cluster.pools.0.cost_model.table", "no-such-table.csv"},
    {"constant cost model without its step", 10, "      cost_model: {constant: {}}", 10,
     "cluster.pools.0.cost_model.constant", "missing required key 'step'"},
    {"duplicate class", 5,
     "    output: {fixed: 10}\n  - class: chat\n    arrival: {rate: 1}\n    input: 5\n    output: "
     "5",
     6, "workload.1.class", "duplicate class name 'chat'"},
    {"timed trace combined with input", 3, "    trace: {format: azure, path: conv.csv}", 4,
     "workload.0.input", "cannot be combined with a trace of format 'azure'"},
    {"missing trace file", 3, "    trace: {format: azure, path: nowhere.csv}", 3,
     "workload.0.trace.path", "trace file 'nowhere.csv' not found"},
    // Prompt structure, sessions and prefix traces; keys of later versions are refused.
    {"prompt structure together with input", 5,
     "    output: {fixed: 10}\n    prompt: [{shared: system, tokens: 100}]", 4, "workload.0.input",
     "'input' cannot be combined with 'prompt'"},
    {"shared prompt segment of varying length", 4,
     "    prompt: [{shared: system, tokens: {uniform: [1, 5]}}]", 4, "workload.0.prompt.0.tokens",
     "a shared segment has one length"},
    {"prompt segment of two kinds", 4, "    prompt: [{shared: system, unique: true, tokens: 5}]", 4,
     "workload.0.prompt.0", "not shared, unique"},
    {"session without turns", 5, "    output: {fixed: 10}\n    session: {new_input: 50}", 6,
     "workload.0.session", "missing required key 'turns'"},
    {"speculative decoding with an unknown draft model", 11, "      engine: {speculative: {draft: tiny, k: 4}}", 11,
     "cluster.pools.0.engine.speculative.draft", "unknown model 'tiny'"},
    // KV tiers.
    {"KV tiers without prefix caching", 11, "      engine: {policy: continuous, kv_offload: {cpu_gib: 64}}", 11,
     "cluster.pools.0.engine.kv_offload", "they need prefix_cache: true"},
    {"KV tiers on hardware without a host link", 11,
     "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 64}}", 11, "cluster.pools.0.engine.kv_offload",
     "host_link_bandwidth_gb_s, which 'tiny-gpu' does not give"},
    {"a disk tier without its bandwidth", 11, "      engine: {prefix_cache: true, kv_offload: {disk_gib: 100}}", 11,
     "cluster.pools.0.engine.kv_offload.disk_gib", "needs its read bandwidth: disk_gb_s"},
    {"misspelt KV tier key", 11, "      engine: {prefix_cache: true, kv_offload: {cpu_gb: 64}}", 11,
     "cluster.pools.0.engine.kv_offload.cpu_gb", "did you mean 'cpu_gib'?"},
    {"misspelt KV offload backend", 11,
     "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 8, backend: lmcash}}", 11,
     "cluster.pools.0.engine.kv_offload.backend", "did you mean 'lmcache'?"},
    {"negative CPU tier", 11, "      engine: {prefix_cache: true, kv_offload: {cpu_gib: -1}}", 11,
     "cluster.pools.0.engine.kv_offload.cpu_gib", "-1"},
    {"a shared KV store without its network", 11,
     "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 64, shared: true}}", 11,
     "cluster.pools.0.engine.kv_offload.shared", "give network_gb_s"},
    {"a network bandwidth for a replica's own tiers", 11,
     "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 64, network_gb_s: 50}}", 11,
     "cluster.pools.0.engine.kv_offload.network_gb_s", "only a shared store"},
    {"a KV store node for a replica's own tiers", 11,
     "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 64, store_node: ib-switch}}", 11,
     "cluster.pools.0.engine.kv_offload.store_node", "only a shared store"},
    {"a shared KV store given both a network bandwidth and a node", 11,
     "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 64, shared: true, network_gb_s: 50, store_node: ib-switch}}",
     11, "cluster.pools.0.engine.kv_offload.store_node", "not both"},
    {"a shared KV store on a node the topology lacks", 11,
     "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 64, shared: true, store_node: kvstore}}", 11,
     "cluster.pools.0.engine.kv_offload.store_node", "no node named 'kvstore'"},
    {"KV offload with no tier", 11, "      engine: {prefix_cache: true, kv_offload: {cpu_gib: 0}}", 11,
     "cluster.pools.0.engine.kv_offload", "gives no tier"},
    {"mooncake trace combined with input", 3, "    trace: {format: mooncake, path: conv.csv}", 4,
     "workload.0.input", "cannot be combined with a trace of format 'mooncake'"},
    {"hash block size on an azure trace", 3,
     "    trace: {format: azure, path: conv.csv, hash_block_tokens: 16}", 3,
     "workload.0.trace.hash_block_tokens", "applies to format 'csv' only"},
    // YAML syntax: a line indented deeper than its siblings.
    {"syntax error", 10, "       tp: 1", 10, "", "YAML syntax error"},
};

TEST_CASE("scenario errors: each malformed scenario names its line - key and problem",
          "[scenario]") {
  REQUIRE(kBadScenarios.size() >= 20);
  ScenarioDir dir;
  for (const BadScenario& row : kBadScenarios) {
    SECTION(row.what) {
      const std::string yaml = edit_line(kMinimalScenario, row.edit_at, row.new_text);
      const std::string path = dir.write("bad.yaml", yaml);
      INFO(yaml);
      try {
        load_scenario(path);
        FAIL("no ConfigError for: " << row.what);
      } catch (const ConfigError& e) {
        INFO(e.what());
        CHECK(e.file() == path);
        CHECK(e.line() == row.line);
        CHECK(e.key() == row.key);
        CHECK_THAT(e.message(), Catch::Contains(row.message));
        // The printed form leads with file:line so editors can jump to it.
        CHECK_THAT(std::string(e.what()), Catch::StartsWith(path + ":" + std::to_string(row.line)));
      }
    }
  }
}

TEST_CASE("scenario errors: a missing scenario file is a ConfigError naming it", "[scenario]") {
  ScenarioDir dir;
  const std::string path = dir.path("does-not-exist.yaml");
  try {
    load_scenario(path);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.file() == path);
    CHECK(e.line() == 0);
    CHECK_THAT(e.message(), Catch::Contains("not found"));
  }
}

TEST_CASE("scenario errors: an empty file asks for workload and cluster", "[scenario]") {
  ScenarioDir dir;
  CHECK_THROWS_WITH(load_scenario(dir.write("empty.yaml", "")),
                    Catch::Contains("needs at least 'workload' and 'cluster'"));
}

TEST_CASE("scenario errors: a broken model file is reported at its own line and at the pool",
          "[scenario]") {
  ScenarioDir dir;
  // hidden_size given as a word on line 3 of the model file.
  const std::string model =
      dir.write("broken-model.yaml", "name: broken\nnum_layers: 32\nhidden_size: wide\n");
  const std::string path =
      dir.write("s.yaml", edit_line(kMinimalScenario, 8, "    - model: broken-model.yaml"));
  try {
    load_scenario(path);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.file() == model);
    CHECK(e.line() == 3);
    CHECK(e.key() == "hidden_size");
    // The scenario's side: which pool asked for this model, and where.
    CHECK_THAT(e.message(), Catch::Contains("cluster.pools.0.model at " + path + ":8"));
  }
}

TEST_CASE("scenario errors: a class no pool serves is refused", "[scenario]") {
  ScenarioDir dir;
  const std::string yaml = edit_line(kMinimalScenario, 5,
                                     "    output: {fixed: 10}\n  - class: batch\n"
                                     "    arrival: {rate: 1}\n    input: 5\n    output: 5");
  // Pool 0 now serves only "chat".
  const std::string path = dir.write("s.yaml", edit_line(yaml, 14, "      classes: [chat]"));
  try {
    load_scenario(path);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "cluster.pools");
    CHECK(e.line() == 11);  // the `pools:` key
    CHECK_THAT(e.message(), Catch::Contains("class 'batch' is not routed to any pool"));
  }
}

}  // namespace
}  // namespace servesim::scenario_errors_test
