// Several models in one cluster (docs/cluster.md, "Several models"): a class naming a
// model goes to a pool serving it, and `cluster.gpus` is one GPU budget that fixed and
// autoscaled pools share and never exceed.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <tuple>

#include "cluster/cluster_test_util.h"
#include "scenario/scenario_fixture.h"
#include "scenario/scenario_load_error.h"
#include "sim/cluster/class_routing.h"
#include "sim/cluster/invariant_checker.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace multi_model_test {

using namespace servesim;
using namespace servesim::test;
using servesim::testing::ScenarioDir;
using servesim::testing::scenario_load_error;

namespace {

constexpr Tick kS = kNsPerSec;

PoolConfig pool_of(const std::string& name, const std::string& model, std::vector<std::string> classes = {}) {
  PoolConfig p;
  p.name = name;
  p.model.name = model;
  p.classes = std::move(classes);
  return p;
}

// Two classes, each naming a model (line 3 and line 8), and `pools` from line 13 on.
std::string two_models(const std::string& chat_model, const std::string& pools, const std::string& tail = "") {
  return "workload:\n"
         "  - class: chat\n"
         "    model: " + chat_model + "\n"
         "    arrival: {process: poisson, rate: 4}\n"
         "    input: {fixed: 100}\n"
         "    output: {fixed: 10}\n"
         "  - class: small\n"
         "    model: llama-3.2-1b\n"
         "    arrival: {process: poisson, rate: 4}\n"
         "    input: {fixed: 100}\n"
         "    output: {fixed: 10}\n"
         "stop: {requests: 100}\n"
         "cluster:\n" + tail +
         "  pools:\n" + pools;
}

const std::string kTwoPools =
    "    - {name: big, model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n"
    "    - {name: little, model: llama-3.2-1b, hardware: h100-sxm}\n";

}  // namespace

TEST_CASE("multi model: a class naming a model goes to the first pool serving it", "[cluster][multi_model]") {
  const std::vector<PoolConfig> pools = {pool_of("a", "m1"), pool_of("b", "m2"), pool_of("c", "m2", {"x"})};
  // No model: the first pool without classes, whatever it serves (the routing as before).
  CHECK(pool_for_class(pools, "y", "") == 0);
  // m2: pool b takes every class; pool c lists x, so x goes there first.
  CHECK(pool_for_class(pools, "y", "m2") == 1);
  CHECK(pool_for_class(pools, "x", "m2") == 2);
  CHECK(pool_for_class(pools, "x", "") == 2);
  CHECK(pool_for_class(pools, "y", "m3") == -1);
  // A decode pool never takes a class, even of its model.
  std::vector<PoolConfig> disagg = {pool_of("d", "m1")};
  disagg[0].role = PoolRole::decode;
  CHECK(pool_for_class(disagg, "y", "m1") == -1);
}

TEST_CASE("multi model: a run routes each class to its model's pool", "[cluster][multi_model]") {
  PoolConfig big = constant_pool("big", 1, 10 * kNsPerMs);
  big.model.name = "chat-model";
  PoolConfig little = constant_pool("little", 1, 10 * kNsPerMs);
  little.model.name = "small-model";
  ClusterConfig cluster;
  cluster.pools = {big, little};
  ClassSpec chat = burst_class("chat", 2.0, 10, 5);
  chat.model = "chat-model";
  ClassSpec small = burst_class("small", 3.0, 10, 5);
  small.model = "small-model";
  StopSpec stop;
  stop.time_ns = 10 * kS;
  Simulation sim(7, stop, {chat, small}, cluster);
  std::map<int, std::set<int>> pools_of_class;
  sim.add_request_sink([&](const RequestRecord& r) { pools_of_class[r.class_index].insert(r.pool_index); });
  const RunResult result = sim.run();
  // Constant arrivals 0.5 s and 1/3 s apart over 10 s: both classes finish requests, each
  // in its own model's pool only (without `model`, both would enter pool 0).
  CHECK(pools_of_class[0] == std::set<int>{0});
  CHECK(pools_of_class[1] == std::set<int>{1});
  CHECK(result.summary.pools.size() == 2);
}

TEST_CASE("multi model: the scenario reads model keys and cluster.gpus", "[cluster][multi_model][scenario]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write("s.yaml", two_models("test-gqa", kTwoPools, "  gpus: 2\n")));
  CHECK(s.workload[0].model == "test-gqa");
  CHECK(s.workload[1].model == "llama-3.2-1b");
  REQUIRE(s.cluster.gpus);
  CHECK(*s.cluster.gpus == 2);
}

TEST_CASE("multi model: bad model keys and budgets name their line and key", "[cluster][multi_model][scenario]") {
  struct Bad {
    std::string yaml;
    int line;
    std::string key, words;
  };
  const std::vector<Bad> cases = {
      // No pool serves the model; the error is at the class's model key (line 3).
      {two_models("llama-3-70b", kTwoPools), 3, "workload.0.model", "unknown model 'llama-3-70b'"},
      // A pool lists the class but serves another model.
      {two_models("test-gqa",
                  "    - {name: big, model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n"
                  "    - {name: little, model: llama-3.2-1b, hardware: h100-sxm, classes: [chat, small]}\n"),
       3, "workload.0.model", "pool 'little', which lists it in 'classes', serves 'llama-3.2-1b'"},
      // The one pool serving chat's model takes only another class (checked before small,
      // which that pool lists although it serves another model).
      {two_models("test-gqa",
                  "    - {name: big, model: tiny-model.yaml, hardware: tiny-gpu.yaml, classes: [small]}\n"
                  "    - {name: little, model: llama-3.2-1b, hardware: h100-sxm}\n"),
       3, "workload.0.model", "no pool serving 'test-gqa' takes class 'chat'"},
      // Two pools of one replica at tp 1 start with 2 GPUs: a budget of 1 is too small.
      {two_models("test-gqa", kTwoPools, "  gpus: 1\n"), 14, "cluster.gpus", "start with 2 GPUs (big 1 x 1, little 1 x 1)"},
      {two_models("test-gqa", kTwoPools, "  gpus: 0\n"), 14, "cluster.gpus", ">= 1"},
  };
  for (const Bad& c : cases) {
    const ConfigError e = scenario_load_error(c.yaml);
    INFO(c.yaml << " -> " << e.what());
    CHECK(e.line() == c.line);
    CHECK(e.key() == c.key);
    CHECK(std::string(e.message()).find(c.words) != std::string::npos);
  }
}

namespace {

// Two autoscaled pools, one GPU per replica, each with its own class at 0.37 requests a
// second (arrivals never on a whole multiple of 5 s, so no request is inside a replica when
// a scale event comes), constant 10 ms steps, no cold start, 15 s between evaluations.
// Pool a asks for 3 replicas from 10 s and 1 from 40 s; pool b for 3 from 20 s.
struct SharedRun {
  RunResult result;
  std::vector<std::tuple<Tick, int, int>> paid;  // (time, a's paid, b's paid) after each change
  std::int64_t deferred_a = 0, deferred_b = 0;
  int peak_held = 0;
  bool invariants_ok = false;
  std::string invariants;
};

AutoscaleSpec schedule(std::vector<ScheduleStep> steps) {
  AutoscaleSpec a;
  a.policy = "schedule";
  a.min_replicas = 1;
  a.max_replicas = 4;
  a.initial_replicas = 1;
  a.schedule = std::move(steps);
  a.cold_start_ns = 0;
  a.scale_down_delay_ns = 0;
  a.interval_ns = 15 * kS;
  return a;
}

SharedRun run_shared(std::optional<int> gpus) {
  PoolConfig a = constant_pool("a", 4, 10 * kNsPerMs);
  a.classes = {"a"};
  a.autoscale = schedule({{0, 1}, {10 * kS, 3}, {40 * kS, 1}});
  PoolConfig b = constant_pool("b", 4, 10 * kNsPerMs);
  b.classes = {"b"};
  b.autoscale = schedule({{0, 1}, {20 * kS, 3}});
  ClusterConfig cluster;
  cluster.pools = {a, b};
  cluster.gpus = gpus;
  StopSpec stop;
  stop.time_ns = 60 * kS;
  Simulation sim(7, stop, {burst_class("a", 0.37, 10, 1), burst_class("b", 0.37, 10, 1)}, cluster);
  InvariantChecker checker(sim);
  SharedRun out;
  Autoscaler* sa = sim.pools()[0]->autoscaler();
  Autoscaler* sb = sim.pools()[1]->autoscaler();
  auto note = [&out, sa, sb](Tick now) { out.paid.emplace_back(now, sa->paid(), sb->paid()); };
  sa->add_change_observer(note);
  sb->add_change_observer(note);
  out.result = sim.run();
  out.deferred_a = sa->starts_deferred();
  out.deferred_b = sb->starts_deferred();
  if (sim.gpu_budget()) out.peak_held = sim.gpu_budget()->peak();
  out.invariants_ok = checker.ok();
  out.invariants = checker.report();
  return out;
}

}  // namespace

TEST_CASE("multi model: two autoscaled pools share a GPU budget and never exceed it", "[cluster][multi_model]") {
  using Paid = std::tuple<Tick, int, int>;
  SECTION("without a budget each pool grows to its own ask") {
    const SharedRun r = run_shared(std::nullopt);
    // a evaluates at 10 s (its schedule's step), b at 15 s (interval) and 20 s (its step):
    // at 20 s the pools pay 3 + 3 = 6 GPUs.
    REQUIRE(r.paid.size() >= 2);
    CHECK(r.paid[0] == Paid{10 * kS, 3, 1});
    CHECK(r.paid[1] == Paid{20 * kS, 3, 3});
    CHECK(r.invariants_ok);
  }
  SECTION("a budget of 4 GPUs defers b until a shrinks") {
    const SharedRun r = run_shared(4);
    INFO(r.invariants);
    CHECK(r.invariants_ok);
    // 10 s: a starts 2 (4 held). 20 s: b asks for 3, no GPU is free and nothing starts
    // (the autoscaler still reports its evaluation); 35 s (interval): again. 40 s: a drains
    // its 2 idle replicas, which turn off at once. 50 s (b's interval): b starts 2, 1 + 3 = 4.
    const std::vector<Paid> expected = {
        {10 * kS, 3, 1}, {20 * kS, 3, 1}, {35 * kS, 3, 1}, {40 * kS, 1, 1}, {50 * kS, 1, 3}};
    CHECK(r.paid == expected);
    CHECK(r.deferred_a == 0);
    CHECK(r.deferred_b == 4);  // 2 at 20 s, 2 at 35 s
    CHECK(r.peak_held == 4);
  }
}

}  // namespace multi_model_test
