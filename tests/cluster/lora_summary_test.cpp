// Multi-LoRA in summary.json (docs/lora.md, "In summary.json"): the lora object of a pool
// serving adapters and overall, worked by hand on a run whose loads are known.
#include <catch2/catch.hpp>
#include <string>

#include "scenario/scenario_fixture.h"
#include "sim/cluster/simulation.h"
#include "sim/scenario/scenario_loader.h"

namespace lora_summary_test {

using namespace servesim;

// One adapter (every request of `tenants` names adapter 1) of 100 MB on one H100: read from
// disk at 2 GB/s (0.05 s), then over the 64 GB/s host link (configs/hardware/h100-sxm.yaml:
// 1.5625 ms). `base` names none and its pool serves none.
constexpr const char* kScenario = R"(name: lora-loads
seed: 1
stop: {requests: 40}
workload:
  - class: tenants
    arrival: {process: poisson, rate: 2}
    input: {fixed: 200}
    output: {fixed: 20}
    lora: {adapters: 1}
  - class: base
    arrival: {process: poisson, rate: 2}
    input: {fixed: 200}
    output: {fixed: 20}
cluster:
  pools:
    - {name: adapters, model: llama-3-8b, hardware: h100-sxm, classes: [tenants],
       engine: {preset: vllm, lora: {max_loras: 1, adapter_mb: 100, disk_gb_s: 2}}}
    - {name: plain, model: llama-3-8b, hardware: h100-sxm, classes: [base], engine: {preset: vllm}}
)";
constexpr double kLoadS = 100e6 / 2e9 + 100e6 / 64e9;

const FieldGroup* object_of(const SummaryBlock& b, const std::string& name) {
  for (const FieldGroup& g : b.objects)
    if (g.name == name) return &g;
  return nullptr;
}

double field_of(const FieldGroup& g, const std::string& name) {
  for (const auto& [n, v] : g.fields)
    if (n == name) return v;
  FAIL("no lora." << name);
  return 0;
}

const SummaryBlock& named(const std::vector<std::pair<std::string, SummaryBlock>>& blocks, const std::string& name) {
  for (const auto& [n, b] : blocks)
    if (n == name) return b;
  FAIL("no block " << name);
  return blocks.front().second;
}

RunResult run(const std::string& yaml) {
  testing::ScenarioDir dir;
  const Scenario s = load_scenario(dir.write("s.yaml", yaml));
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  return sim.run();
}

TEST_CASE("lora summary: one adapter loads once from disk and every later request hits", "[cluster][lora]") {
  const RunResult r = run(kScenario);
  REQUIRE(r.completed == 40);
  const SummaryBlock& adapters = named(r.summary.pools, "adapters");
  const std::int64_t tenants = static_cast<std::int64_t>(named(r.summary.classes, "tenants").get("completed"));
  REQUIRE(tenants > 5);
  for (const SummaryBlock* b : {&adapters, &r.summary.overall}) {
    const FieldGroup* lora = object_of(*b, "lora");
    REQUIRE(lora != nullptr);
    // The first request's step reads the adapter from disk into CPU memory and its GPU slot;
    // the one slot keeps it (no other adapter), so every later request finds it there.
    CHECK(field_of(*lora, "adapter_loads") == 1);
    CHECK(field_of(*lora, "adapter_loads_from_disk") == 1);
    CHECK(field_of(*lora, "adapter_load_s") == Approx(kLoadS).epsilon(1e-9));
    CHECK(field_of(*lora, "request_misses") == 1);
    CHECK(field_of(*lora, "request_hits") == tenants - 1);
    CHECK(field_of(*lora, "request_hit_rate") == Approx(static_cast<double>(tenants - 1) / tenants));
  }
  // A pool without lora and the classes carry none.
  CHECK(object_of(named(r.summary.pools, "plain"), "lora") == nullptr);
  for (const auto& [name, b] : r.summary.classes) CHECK(object_of(b, "lora") == nullptr);
}

TEST_CASE("lora summary: a run without lora has no lora object", "[cluster][lora]") {
  std::string yaml = kScenario;
  yaml.replace(yaml.find("    lora: {adapters: 1}\n"), std::string("    lora: {adapters: 1}\n").size(), "");
  yaml.replace(yaml.find(", lora: {max_loras: 1, adapter_mb: 100, disk_gb_s: 2}"),
               std::string(", lora: {max_loras: 1, adapter_mb: 100, disk_gb_s: 2}").size(), "");
  const RunResult r = run(yaml);
  CHECK(object_of(r.summary.overall, "lora") == nullptr);
  for (const auto& [name, b] : r.summary.pools) CHECK(object_of(b, "lora") == nullptr);
  // Nor a lora_load part in the TTFT attribution.
  const FieldGroup* ttft = object_of(r.summary.overall, "ttft_attribution");
  REQUIRE(ttft != nullptr);
  for (const auto& [name, value] : ttft->fields) CHECK(name != "lora_load_ms");
}

TEST_CASE("lora summary: one request's adapter load is its TTFT's lora_load part", "[cluster][lora][attribution]") {
  std::string yaml = kScenario;
  yaml.replace(yaml.find("stop: {requests: 40}"), std::string("stop: {requests: 40}").size(), "stop: {requests: 1}");
  const RunResult r = run(yaml);
  REQUIRE(r.completed == 1);
  const SummaryBlock& b = r.summary.overall;
  const FieldGroup* ttft = object_of(b, "ttft_attribution");
  REQUIRE(ttft != nullptr);
  // The one request misses: its first step waits for the whole load, and no other step of
  // its prefill loads anything.
  CHECK(field_of(*ttft, "lora_load_ms") == Approx(kLoadS * 1e3).epsilon(1e-12));
  CHECK(field_of(*object_of(b, "lora"), "request_misses") == 1);
  // Taken out of overhead_ms, not added beside it: the parts still sum to the TTFT.
  double parts_ms = 0;
  for (const auto& [name, value] : ttft->fields) parts_ms += value;
  CHECK(parts_ms == Approx(b.get("mean_ttft_ms")).epsilon(1e-9));
  CHECK(field_of(*ttft, "overhead_ms") < 5);
  CHECK(b.get("mean_ttft_ms") > kLoadS * 1e3);
}

}  // namespace lora_summary_test
