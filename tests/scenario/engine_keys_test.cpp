// The engine keys of this version (docs/engine.md): each malformed value is refused at its
// line with its key, and good values reach the EngineConfig.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::engine_keys_test {
namespace {

struct BadEngine {
  const char* what;
  const char* engine;   // replaces line 11 ("      engine: {policy: continuous}")
  const char* key;      // expected ConfigError::key()
  const char* message;  // expected part of the message
};

const std::vector<BadEngine> kBadEngines = {
    {"unknown preset", "      engine: {preset: vllmm}", "cluster.pools.0.engine.preset", "did you mean 'vllm'?"},
    {"unknown policy lists the new ones", "      engine: {policy: statik}", "cluster.pools.0.engine.policy",
     "did you mean 'static'?"},
    {"decode target with another policy", "      engine: {policy: continuous, decode_target_batch: 4}",
     "cluster.pools.0.engine.decode_target_batch", "only policy 'decode-priority' uses it"},
    {"decode target above max_num_seqs",
     "      engine: {policy: decode-priority, max_num_seqs: 8, decode_target_batch: 9}",
     "cluster.pools.0.engine.decode_target_batch", "more than max_num_seqs"},
    {"priority preemption with another policy", "      engine: {preempt_lower_priority: true}",
     "cluster.pools.0.engine.preempt_lower_priority", "only policy 'priority' uses it"},
    {"watermark of 1", "      engine: {watermark: 1}", "cluster.pools.0.engine.watermark", "must be in [0, 1)"},
    {"misspelt preemption mode", "      engine: {preemption_mode: swapp}", "cluster.pools.0.engine.preemption_mode",
     "did you mean 'swap'?"},
    {"swap without a host link", "      engine: {preemption_mode: swap}", "cluster.pools.0.engine.preemption_mode",
     "host_link_bandwidth_gb_s"},
    {"negative overhead", "      engine: {overheads: {per_step: -1ms}}", "cluster.pools.0.engine.overheads.per_step",
     "non-negative"},
    {"misspelt overhead", "      engine: {overheads: {per_stp: 1ms}}", "cluster.pools.0.engine.overheads.per_stp",
     "did you mean 'per_step'?"},
    {"acceptance above 1", "      engine: {speculative: {method: ngram, k: 3, acceptance: 1.5}}",
     "cluster.pools.0.engine.speculative.acceptance", "fraction in [0, 1]"},
    {"acceptance of an unknown class", "      engine: {speculative: {method: ngram, acceptance: {caht: 0.5}}}",
     "cluster.pools.0.engine.speculative.acceptance.caht", "did you mean 'chat'?"},
    {"draft model with ngram", "      engine: {speculative: {method: ngram, draft: llama-3.2-1b}}",
     "cluster.pools.0.engine.speculative.draft", "does not apply to method 'ngram'"},
    {"draft method without a draft", "      engine: {speculative: {k: 4}}", "cluster.pools.0.engine.speculative",
     "needs 'draft: MODEL'"},
    {"draft with another vocabulary", "      engine: {speculative: {draft: llama-2-7b}}",
     "cluster.pools.0.engine.speculative.draft", "vocabulary"},
    {"k of 0", "      engine: {speculative: {method: ngram, k: 0}}", "cluster.pools.0.engine.speculative.k",
     "must be >= 1"},
    {"misspelt overflow rule", "      engine: {on_context_overflow: trunc}",
     "cluster.pools.0.engine.on_context_overflow", "valid rules: reject, truncate"},
    {"cuda graphs turned on without a size", "      engine: {cuda_graphs: true}", "cluster.pools.0.engine.cuda_graphs",
     "needs a mapping such as {max_batch: 512}"},
    {"cuda graphs of a negative batch", "      engine: {cuda_graphs: {max_batch: -1}}",
     "cluster.pools.0.engine.cuda_graphs.max_batch", "must be >= 0"},
    {"cuda graphs of a word", "      engine: {cuda_graphs: {max_batch: lots}}",
     "cluster.pools.0.engine.cuda_graphs.max_batch", "lots"},
    {"cuda graphs with an unknown key", "      engine: {cuda_graphs: {max_batch_size: 64}}",
     "cluster.pools.0.engine.cuda_graphs.max_batch_size", "valid keys: max_batch"},
    {"cuda graphs as a list", "      engine: {cuda_graphs: [64]}", "cluster.pools.0.engine.cuda_graphs",
     "expected off or a mapping like {max_batch: 512}"},
    {"version with a leading v", "      engine: {version: v0.14.0}", "cluster.pools.0.engine.version",
     "expected an engine release such as \"0.14.0\""},
    {"version with a space", "      engine: {version: \"0.14 final\"}", "cluster.pools.0.engine.version",
     "expected an engine release"},
    {"misspelt KV memory rule", "      engine: {kv_memory_rule: vlm}", "cluster.pools.0.engine.kv_memory_rule",
     "did you mean 'vllm'?"},
    {"unknown KV memory rule", "      engine: {kv_memory_rule: tensorrt}", "cluster.pools.0.engine.kv_memory_rule",
     "flat, vllm, sglang, trtllm"},
    {"async scheduling of a word", "      engine: {async_scheduling: sometimes}",
     "cluster.pools.0.engine.async_scheduling", "expected true or false"},
    {"gpu memory auto without the sglang rule", "      engine: {gpu_memory_utilization: auto, kv_memory_rule: vllm}",
     "cluster.pools.0.engine.gpu_memory_utilization", "'auto' needs kv_memory_rule: sglang"},
};

}  // namespace

TEST_CASE("engine keys: each malformed engine setting names its key and problem", "[policy]") {
  ScenarioDir dir;
  for (const BadEngine& row : kBadEngines) {
    SECTION(row.what) {
      const std::string yaml = edit_line(kMinimalScenario, 11, row.engine);
      const std::string path = dir.write("bad.yaml", yaml);
      INFO(yaml);
      try {
        load_scenario(path);
        FAIL("no ConfigError for: " << row.what);
      } catch (const ConfigError& e) {
        INFO(e.what());
        CHECK(e.key() == row.key);
        CHECK(e.line() == 11);
        CHECK_THAT(e.message(), Catch::Contains(row.message));
      }
    }
  }
}

TEST_CASE("engine keys: every new key reaches the engine config", "[policy]") {
  ScenarioDir dir;
  const std::string engine =
      "      engine:\n"
      "        policy: priority\n"
      "        preempt_lower_priority: true\n"
      "        prefill_chunk_tokens: 256\n"
      "        watermark: 0.05\n"
      "        kv_admission: reserve-full\n"
      "        swap_space_gb: 2\n"
      "        overheads: {per_step: 2ms, per_request: 1ms, per_token: 10us}\n"
      "        on_context_overflow: truncate\n"
      "        speculative: {draft: llama-3.2-1b, k: 3, acceptance: {chat: 0.8}}";
  const Scenario s = load_scenario(dir.write("good.yaml", edit_line(kMinimalScenario, 11, engine)));
  const EngineConfig& e = s.cluster.pools.at(0).engine;
  CHECK(e.policy == "priority");
  CHECK(e.preempt_lower_priority);
  CHECK(e.prefill_chunk_tokens == 256);
  CHECK(e.watermark == 0.05);
  CHECK(e.kv_admission == KvAdmission::reserve_full);
  CHECK(e.swap_space_bytes == 2.0 * 1024 * 1024 * 1024);
  CHECK(e.overheads.per_step_ns == 2'000'000);
  CHECK(e.overheads.per_request_ns == 1'000'000);
  CHECK(e.overheads.per_token_ns == 10'000);
  CHECK(e.on_context_overflow == ContextOverflow::truncate);
  CHECK(e.speculative.enabled);
  CHECK(e.speculative.method == "draft");
  REQUIRE(e.speculative.draft_model);
  CHECK(e.speculative.draft_model->name == "llama-3.2-1b");
  CHECK(e.speculative.k == 3);
  CHECK(e.speculative.acceptance_for(0) == 0.8);
}

TEST_CASE("engine keys: cuda_graphs - version and kv_memory_rule reach the engine config", "[policy]") {
  ScenarioDir dir;
  const auto engine_of = [&](const std::string& engine) {
    return load_scenario(dir.write("good.yaml", edit_line(kMinimalScenario, 11, engine))).cluster.pools.at(0).engine;
  };
  CHECK(engine_of("      engine: {cuda_graphs: off}").cuda_graph_max_batch == 0);
  CHECK(engine_of("      engine: {cuda_graphs: false}").cuda_graph_max_batch == 0);
  CHECK(engine_of("      engine: {cuda_graphs: {max_batch: 64}}").cuda_graph_max_batch == 64);
  CHECK(engine_of("      engine: {cuda_graphs: {max_batch: 0}}").cuda_graph_max_batch == 0);
  // auto: vLLM's min(2 x max_num_seqs, 512), resolved after every key is read, so an
  // override of max_num_seqs next to it (or after a preset's auto) counts.
  CHECK(engine_of("      engine: {max_num_seqs: 100, cuda_graphs: {max_batch: auto}}").cuda_graph_max_batch == 200);
  CHECK(engine_of("      engine: {max_num_seqs: 1024, cuda_graphs: {max_batch: auto}}").cuda_graph_max_batch == 512);
  CHECK(engine_of("      engine: {max_num_seqs: 256, cuda_graphs: {max_batch: auto}}").cuda_graph_max_batch == 512);
  CHECK(engine_of("      engine: {preset: vllm}").cuda_graph_max_batch == 512);
  CHECK(engine_of("      engine: {preset: vllm, max_num_seqs: 64}").cuda_graph_max_batch == 128);
  // `off` turns off what a preset turned on.
  CHECK(engine_of("      engine: {preset: sglang, cuda_graphs: off}").cuda_graph_max_batch == 0);
  CHECK(engine_of("      engine: {preset: sglang}").cuda_graph_max_batch == 256);
  // version: the preset's, or the file's.
  CHECK(engine_of("      engine: {policy: continuous}").version.empty());
  CHECK(engine_of("      engine: {preset: vllm}").version == "0.14.0");
  CHECK(engine_of("      engine: {preset: trtllm}").version == "1.3.0rc20");
  CHECK(engine_of("      engine: {preset: vllm, version: \"0.15.1\"}").version == "0.15.1");
  CHECK(engine_of("      engine: {version: 1.3.0rc20+local-1}").version == "1.3.0rc20+local-1");
  // kv_memory_rule: each rule, and the presets' own.
  CHECK(engine_of("      engine: {policy: continuous}").kv_memory_rule == KvMemoryRule::flat);
  CHECK(engine_of("      engine: {kv_memory_rule: flat}").kv_memory_rule == KvMemoryRule::flat);
  CHECK(engine_of("      engine: {kv_memory_rule: vllm}").kv_memory_rule == KvMemoryRule::vllm);
  CHECK(engine_of("      engine: {kv_memory_rule: sglang}").kv_memory_rule == KvMemoryRule::sglang);
  CHECK(engine_of("      engine: {kv_memory_rule: trtllm}").kv_memory_rule == KvMemoryRule::trtllm);
  CHECK(engine_of("      engine: {preset: vllm}").kv_memory_rule == KvMemoryRule::vllm);
  CHECK(engine_of("      engine: {preset: sglang}").kv_memory_rule == KvMemoryRule::sglang);
  CHECK(engine_of("      engine: {preset: trtllm}").kv_memory_rule == KvMemoryRule::trtllm);
  // async_scheduling: the vllm preset's `auto` is vLLM's rule, on unless it speculates
  // (n-gram and draft-model speculation run synchronously in vLLM 0.14); true holds.
  const std::string ngram = "speculative: {method: ngram, k: 3, acceptance: 0.5}";
  CHECK_FALSE(engine_of("      engine: {policy: continuous}").async_scheduling);
  CHECK(engine_of("      engine: {preset: vllm}").async_scheduling);
  CHECK_FALSE(engine_of("      engine: {preset: vllm, " + ngram + "}").async_scheduling);
  CHECK(engine_of("      engine: {preset: vllm, async_scheduling: true, " + ngram + "}").async_scheduling);
  CHECK(engine_of("      engine: {preset: sglang, " + ngram + "}").async_scheduling);
  CHECK(engine_of("      engine: {async_scheduling: auto}").async_scheduling);
  CHECK_FALSE(engine_of("      engine: {async_scheduling: auto, " + ngram + "}").async_scheduling);
  CHECK_FALSE(engine_of("      engine: {preset: vllm, async_scheduling: false}").async_scheduling);
}

TEST_CASE("engine keys: a preset's own errors point into the preset file", "[policy]") {
  ScenarioDir dir;
  const std::string preset = dir.write("mine.yaml", "policy: chunked-prefill\nmax_num_seqs: lots\n");
  const std::string yaml = edit_line(kMinimalScenario, 11, "      engine: {preset: " + preset + "}");
  try {
    load_scenario(dir.write("s.yaml", yaml));
    FAIL("no ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.file() == preset);
    CHECK(e.line() == 2);
    CHECK(e.key() == "max_num_seqs");
  }
}

}  // namespace servesim::engine_keys_test
