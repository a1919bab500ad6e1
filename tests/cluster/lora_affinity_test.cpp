// The lora-affinity router (docs/lora.md, "Routing"): its filter chain on hand-made
// snapshots, the adapters Replica::lora_load reports, and a whole run in which routing by
// adapter finds adapters in their GPU slot more often than routing by load alone.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "scenario/scenario_fixture.h"
#include "sim/cluster/router.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace lora_affinity_test {

using namespace servesim;

namespace {

std::unique_ptr<Router> affinity(std::uint64_t seed = 1) {
  return make_router_registry().find("lora-affinity")->factory(seed, "main");
}

// A replica with `waiting` queued requests, KV usage `kv`, `running_adapters` distinct
// adapters running of `max_loras`, and whether a request of the routed adapter is on it.
ReplicaSnapshot snap(int index, std::int64_t waiting, double kv, int running_adapters, int max_loras, bool active) {
  ReplicaSnapshot s;
  s.index = index;
  s.waiting = waiting;
  s.outstanding = waiting;
  s.kv_usage = kv;
  s.lora_running_adapters = running_adapters;
  s.lora_max_loras = max_loras;
  s.lora_adapter_active = active;
  return s;
}

RequestSpec adapter(int id) {
  RequestSpec r;
  r.prompt_tokens = 100;
  r.lora_adapter = static_cast<std::int16_t>(id);
  return r;
}

// The replicas a route may pick, over enough draws to see each of a small set.
std::set<int> targets(const RequestSpec& request, const std::vector<ReplicaSnapshot>& replicas) {
  auto router = affinity();
  std::set<int> out;
  for (int i = 0; i < 200; ++i) out.insert(router->route(request, replicas).target);
  return out;
}

}  // namespace

TEST_CASE("lora-affinity: a replica using the adapter beats a less loaded one", "[cluster][lora][router]") {
  CHECK(affinity()->wants_lora());
  CHECK_FALSE(make_router_registry().find("least-outstanding")->factory(1, "main")->wants_lora());
  // Replica 2 runs adapter 7 with 10 waiting; 0 and 1 are idle and have room. Affinity
  // (step 1a) keeps replica 2 alone.
  const std::vector<ReplicaSnapshot> a = {snap(0, 0, 0.1, 0, 2, false), snap(1, 0, 0.1, 1, 2, false),
                                          snap(2, 10, 0.5, 2, 2, true)};
  CHECK(targets(adapter(7), a) == std::set<int>{2});
  // No replica uses it: those with room (step 1b), here replica 1 (1 of 2 slots) but not
  // replica 0 (2 of 2), whatever the load.
  const std::vector<ReplicaSnapshot> b = {snap(0, 0, 0.0, 2, 2, false), snap(1, 9, 0.4, 1, 2, false)};
  CHECK(targets(adapter(7), b) == std::set<int>{1});
  // Nobody has room: every short-queue replica, then the least-queue band: waiting 0, 3 and
  // 9 over 3 replicas keeps those within (9 - 0) / 3 = 3 of 0, replicas 0 and 1; the KV
  // band of those two (0.2 and 0.3: within 0.05 of 0.2) keeps replica 0.
  const std::vector<ReplicaSnapshot> c = {snap(0, 0, 0.2, 2, 2, false), snap(1, 3, 0.3, 2, 2, false),
                                          snap(2, 9, 0.1, 2, 2, false)};
  CHECK(targets(adapter(7), c) == std::set<int>{0});
  // Equal figures: a uniform draw among them.
  const std::vector<ReplicaSnapshot> d = {snap(0, 1, 0.2, 0, 2, false), snap(1, 1, 0.2, 0, 2, false),
                                          snap(2, 1, 0.2, 0, 2, false)};
  CHECK(targets(adapter(7), d) == std::set<int>{0, 1, 2});
}

TEST_CASE("lora-affinity: queues of 50 waiting switch affinity off", "[cluster][lora][router]") {
  // Replica 0 uses the adapter but has 50 waiting (not fewer than 50): replica 1 (49) alone
  // passes the short-queue filter, and with no affinity and no room there it still wins.
  const std::vector<ReplicaSnapshot> a = {snap(0, 50, 0.1, 1, 1, true), snap(1, 49, 0.9, 1, 1, false)};
  CHECK(targets(adapter(3), a) == std::set<int>{1});
  // Every queue long (step 2): the least-queue band of 60, 61 and 90 keeps those within
  // (90 - 60) / 3 = 10 of 60, replicas 0 and 1; of them the one using the adapter or with
  // room, replica 1; then the KV band of replica 1 alone.
  const std::vector<ReplicaSnapshot> b = {snap(0, 60, 0.1, 1, 1, false), snap(1, 61, 0.9, 1, 1, true),
                                          snap(2, 90, 0.0, 0, 1, false)};
  CHECK(targets(adapter(3), b) == std::set<int>{1});
  // A base-model request (adapter 0) ignores adapters: the bands alone, replica 0.
  CHECK(targets(adapter(0), b) == std::set<int>{0});
}

namespace {

// 8 adapters drawn uniformly over 4 replicas that each batch one adapter at a time
// (max_loras 1) and keep 2 in CPU memory: routing by load sends each adapter everywhere,
// so a request rarely finds its adapter in the GPU slot; routing by adapter keeps an
// adapter where it is running.
constexpr const char* kScenario = R"(name: lora-routing
seed: 3
stop: {requests: 600}
workload:
  - class: tenants
    arrival: {process: poisson, rate: 40}
    input: {fixed: 256}
    output: {fixed: 64}
    lora: {adapters: 8}
cluster:
  router: ROUTER
  pools:
    - {name: main, replicas: 4, model: llama-3-8b, hardware: h100-sxm,
       engine: {preset: vllm, lora: {max_loras: 1, max_cpu_loras: 2, adapter_mb: 100, disk_gb_s: 2}}}
)";

double hit_rate(const std::string& router) {
  std::string yaml = kScenario;
  yaml.replace(yaml.find("ROUTER"), 6, router);
  testing::ScenarioDir dir;
  const Scenario s = load_scenario(dir.write("s.yaml", yaml));
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  const RunResult r = sim.run();
  REQUIRE(r.completed == 600);
  for (const FieldGroup& g : r.summary.overall.objects)
    if (g.name == "lora")
      for (const auto& [name, value] : g.fields)
        if (name == "request_hit_rate") return value;
  FAIL("no lora.request_hit_rate");
  return 0;
}

}  // namespace

TEST_CASE("lora-affinity: adapters found in their GPU slot more often than under least-outstanding",
          "[cluster][lora][router]") {
  const double by_load = hit_rate("least-outstanding");
  const double by_adapter = hit_rate("lora-affinity");
  // Under least-outstanding a request lands on a replica whose one slot holds its adapter
  // about 1 time in 8 (the slot holds the last adapter run there, one of 8 equally likely);
  // lora-affinity sends it where its adapter runs whenever one does.
  CHECK(by_load < 0.3);
  CHECK(by_adapter > by_load + 0.2);
}

TEST_CASE("lora trace column: a pool without a lora block refuses a trace that names adapters", "[cluster][lora]") {
  testing::ScenarioDir dir;
  const std::string trace = dir.write("t.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,lora_adapter\n0.0,100,5,2\n");
  const std::string yaml = "name: t\nseed: 1\nworkload:\n  - class: tenants\n    trace: {format: vidur, path: " + trace +
                           "}\ncluster:\n  pools:\n    - {name: main, model: llama-3-8b, hardware: h100-sxm, engine: {preset: vllm}}\n";
  const Scenario s = load_scenario(dir.write("s.yaml", yaml));
  try {
    Simulation sim(s.seed, s.stop, s.workload, s.cluster);
    FAIL("the adapters would have been silently ignored");
  } catch (const ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("names LoRA adapters") && Catch::Contains("pool 'main'"));
  }
}

}  // namespace lora_affinity_test
