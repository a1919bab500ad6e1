// `cluster.budget_policy` (docs/cluster.md, "Several models"): under `priority` a start
// that does not fit takes GPUs back from a lower-priority pool, and GPUs that turn free go
// to the waiting pool at once; `first_come` is the behaviour without the key. The budget
// never goes over its total (the invariant checker, INV-11, after every change).
#include <catch2/catch.hpp>

#include <tuple>

#include "cluster/cluster_test_util.h"
#include "scenario/scenario_fixture.h"
#include "scenario/scenario_load_error.h"
#include "sim/cluster/budget_policy.h"
#include "sim/cluster/invariant_checker.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace budget_policy_test {

using namespace servesim;
using namespace servesim::test;
using servesim::testing::ScenarioDir;
using servesim::testing::scenario_load_error;

namespace {

constexpr Tick kS = kNsPerSec;
using Paid = std::tuple<Tick, int, int>;

struct Run {
  std::vector<Paid> paid;  // (time, a's paid, b's paid) after each change
  std::int64_t deferred_a = 0, deferred_b = 0;
  double paid_a_s = 0;
  RunResult result;
  int peak_held = 0;
  bool invariants_ok = false;
  std::string invariants;
};

AutoscaleSpec schedule(std::vector<ScheduleStep> steps, Tick cold_start_ns) {
  AutoscaleSpec a;
  a.policy = "schedule";
  a.min_replicas = 1;
  a.max_replicas = 4;
  a.initial_replicas = 1;
  a.schedule = std::move(steps);
  a.cold_start_ns = cold_start_ns;
  a.scale_down_delay_ns = 0;
  a.interval_ns = 15 * kS;
  return a;
}

// multi_model_test's two pools under `gpus: 4` (one GPU per replica, classes at 0.37/s
// whose 10 ms requests are never inside a replica at a scale event): a asks for 3 from
// 10 s and 1 from 40 s, b for 3 from 20 s; evaluations every 15 s and at the steps.
Run run(const std::string& policy, int priority_a, int priority_b, Tick cold_start_a_ns = 0) {
  PoolConfig a = constant_pool("a", 4, 10 * kNsPerMs);
  a.classes = {"a"};
  a.autoscale = schedule({{0, 1}, {10 * kS, 3}, {40 * kS, 1}}, cold_start_a_ns);
  a.priority = priority_a;
  PoolConfig b = constant_pool("b", 4, 10 * kNsPerMs);
  b.classes = {"b"};
  b.autoscale = schedule({{0, 1}, {20 * kS, 3}}, 0);
  b.priority = priority_b;
  ClusterConfig cluster;
  cluster.pools = {a, b};
  cluster.gpus = 4;
  cluster.budget_policy = policy;
  StopSpec stop;
  stop.time_ns = 60 * kS;
  Simulation sim(7, stop, {burst_class("a", 0.37, 10, 1), burst_class("b", 0.37, 10, 1)}, cluster);
  InvariantChecker checker(sim);
  Run out;
  Autoscaler* sa = sim.pools()[0]->autoscaler();
  Autoscaler* sb = sim.pools()[1]->autoscaler();
  sa->add_change_observer([&out, sa, sb](Tick now) { out.paid.emplace_back(now, sa->paid(), sb->paid()); });
  sb->add_change_observer([&out, sa, sb](Tick now) { out.paid.emplace_back(now, sa->paid(), sb->paid()); });
  out.result = sim.run();
  out.deferred_a = sa->starts_deferred();
  out.deferred_b = sb->starts_deferred();
  out.paid_a_s = static_cast<double>(sa->paid_ns(60 * kS)) / kS;
  out.peak_held = sim.gpu_budget()->peak();
  out.invariants_ok = checker.ok();
  out.invariants = checker.report();
  return out;
}

std::int64_t count_of(const RunResult& r, const std::string& pool, const std::string& field) {
  for (const auto& [n, b] : r.summary.pools)
    if (n == pool) return static_cast<std::int64_t>(b.get(field));
  FAIL("no pool " << pool);
  return -1;
}

bool has_field(const RunResult& r, const std::string& pool, const std::string& field) {
  for (const auto& [n, b] : r.summary.pools)
    if (n == pool) return b.has(field);
  return false;
}

}  // namespace

TEST_CASE("budget policy: the registry lists first_come first - then priority and slo_headroom", "[cluster][budget_policy]") {
  const std::vector<std::string> names = budget_policy_names();
  REQUIRE(names.size() == 3);
  CHECK(names[0] == "first_come");  // the default
  CHECK(names[1] == "priority");
  CHECK(names[2] == "slo_headroom");
  CHECK_FALSE(make_first_come_budget_policy()->reclaims());
  CHECK(make_priority_budget_policy()->reclaims());
  BudgetPoolView high;
  high.priority = 5;
  CHECK(make_priority_budget_policy()->rank(high) == 5.0);
  // slo_headroom: TTFT p90 / target; no sample: 0 when idle, the highest rank when busy.
  const auto slo = make_slo_headroom_budget_policy();
  CHECK(slo->reclaims());
  BudgetPoolView over;
  over.ttft_over_target = 2.5;
  over.priority = -3;  // not read
  CHECK(slo->rank(over) == 2.5);
  BudgetPoolView idle;
  CHECK(slo->rank(idle) == 0.0);
  BudgetPoolView stuck;
  stuck.in_flight = 4;
  CHECK(slo->rank(stuck) > 1e300);
}

TEST_CASE("budget policy: first_come defers b until a shrinks on its own", "[cluster][budget_policy]") {
  const Run r = run("first_come", 0, 1);
  INFO(r.invariants);
  CHECK(r.invariants_ok);
  // As multi_model_test: b's asks at 20 s and 35 s find no GPU; a's 2 turn off at 40 s;
  // b starts its 2 at its next evaluation, 50 s. Priorities are not read.
  const std::vector<Paid> expected = {{10 * kS, 3, 1}, {20 * kS, 3, 1}, {35 * kS, 3, 1}, {40 * kS, 1, 1}, {50 * kS, 1, 3}};
  CHECK(r.paid == expected);
  CHECK(r.deferred_b == 4);
  CHECK(r.peak_held == 4);
  CHECK_FALSE(has_field(r.result, "a", "gpu_budget_reclaims"));
}

TEST_CASE("budget policy: priority drains the lower pool for the higher one's start", "[cluster][budget_policy]") {
  const Run r = run("priority", 0, 1);
  INFO(r.invariants);
  CHECK(r.invariants_ok);
  // 20 s: b (priority 1) asks for 3 with no GPU free; a (priority 0) has 2 replicas above
  // min_replicas 1, both idle: it drains the highest index first (2, then 1), each turns off
  // at once, and b starts its 2 at that instant. 25 s: a's schedule still asks 3, but b
  // ranks higher, so a waits (2 deferred). 40 s: a asks 1, which it has.
  const std::vector<Paid> expected = {{10 * kS, 3, 1}, {20 * kS, 3, 1}, {20 * kS, 2, 1},
                                      {20 * kS, 1, 1}, {20 * kS, 1, 3}, {25 * kS, 1, 3}};
  CHECK(r.paid == expected);
  CHECK(r.deferred_a == 2);
  CHECK(r.deferred_b == 2);
  CHECK(r.peak_held == 4);
  CHECK(count_of(r.result, "a", "gpu_budget_reclaims") == 2);
  CHECK(count_of(r.result, "a", "gpu_budget_reclaims_asked") == 0);
  CHECK(count_of(r.result, "b", "gpu_budget_reclaims") == 0);
  CHECK(count_of(r.result, "b", "gpu_budget_reclaims_asked") == 2);
  // a paid 60 s for replica 0 and 10 s (10 s to 20 s) for each of replicas 1 and 2.
  CHECK(r.paid_a_s == Approx(80.0).epsilon(1e-12));
}

TEST_CASE("budget policy: a higher pool is never drained and its freed GPUs go to the waiting pool at once",
          "[cluster][budget_policy]") {
  const Run r = run("priority", 1, 0);
  INFO(r.invariants);
  CHECK(r.invariants_ok);
  // b (priority 0) cannot take a's GPUs, so its asks at 20 s and 35 s wait as under
  // first_come; when a's 2 replicas turn off at 40 s, b starts its 2 at 40 s, not at its
  // next evaluation (50 s).
  const std::vector<Paid> expected = {{10 * kS, 3, 1}, {20 * kS, 3, 1}, {35 * kS, 3, 1}, {40 * kS, 1, 1}, {40 * kS, 1, 3}};
  CHECK(r.paid == expected);
  CHECK(r.deferred_b == 4);
  CHECK(count_of(r.result, "a", "gpu_budget_reclaims") == 0);
  CHECK(count_of(r.result, "b", "gpu_budget_reclaims_asked") == 0);
}

TEST_CASE("budget policy: a replica still in its cold start is stopped first and frees its GPUs at once",
          "[cluster][budget_policy]") {
  const Run r = run("priority", 0, 1, 30 * kS);
  INFO(r.invariants);
  CHECK(r.invariants_ok);
  // a's 2 starts at 10 s cold-start until 40 s; at 20 s both are stopped (paid 10 s each)
  // and b starts its 2 (no cold start).
  const std::vector<Paid> expected = {{10 * kS, 3, 1}, {20 * kS, 3, 1}, {20 * kS, 2, 1},
                                      {20 * kS, 1, 1}, {20 * kS, 1, 3}, {25 * kS, 1, 3}};
  CHECK(r.paid == expected);
  CHECK(r.paid_a_s == Approx(80.0).epsilon(1e-12));
  CHECK(count_of(r.result, "a", "gpu_budget_reclaims") == 2);
}

namespace {

// Pool a: one request at a time (max_num_seqs 1) of 100 output tokens at 10 ms a step,
// about 1 s each, arriving 2 a second, so its queue and TTFT grow; pool b: 10 ms requests
// at 0.37/s, never inside at a multiple of 5 s, starting with 3 replicas. Both autoscale by
// slo_headroom (TTFT target 1 s, 60 s window, no cold start, a 1,000 s scale-down window so
// b keeps its 3 unless taken), under `gpus: 4`, for 20 s.
struct HeadroomRun {
  std::vector<Paid> paid;
  RunResult result;
  bool invariants_ok = false;
  std::string invariants;
};

HeadroomRun run_headroom(const std::string& policy) {
  AutoscaleSpec spec;
  spec.policy = "slo_headroom";
  spec.min_replicas = 1;
  spec.max_replicas = 4;
  spec.ttft_target_ns = kS;
  spec.window_ns = 60 * kS;
  spec.cold_start_ns = 0;
  spec.scale_down_delay_ns = 1000 * kS;
  spec.interval_ns = 15 * kS;
  PoolConfig a = constant_pool("a", 4, 10 * kNsPerMs, 1);
  a.classes = {"a"};
  a.autoscale = spec;
  a.autoscale->initial_replicas = 1;
  PoolConfig b = constant_pool("b", 4, 10 * kNsPerMs);
  b.classes = {"b"};
  b.autoscale = spec;
  b.autoscale->initial_replicas = 3;
  ClusterConfig cluster;
  cluster.pools = {a, b};
  cluster.gpus = 4;
  cluster.budget_policy = policy;
  StopSpec stop;
  stop.time_ns = 20 * kS;
  Simulation sim(7, stop, {burst_class("a", 2.0, 10, 100), burst_class("b", 0.37, 10, 1)}, cluster);
  InvariantChecker checker(sim);
  HeadroomRun out;
  Autoscaler* sa = sim.pools()[0]->autoscaler();
  Autoscaler* sb = sim.pools()[1]->autoscaler();
  sa->add_change_observer([&out, sa, sb](Tick now) { out.paid.emplace_back(now, sa->paid(), sb->paid()); });
  sb->add_change_observer([&out, sa, sb](Tick now) { out.paid.emplace_back(now, sa->paid(), sb->paid()); });
  out.result = sim.run();
  out.invariants_ok = checker.ok();
  out.invariants = checker.report();
  return out;
}

}  // namespace

TEST_CASE("budget policy: slo_headroom drains the pool with headroom for the one over its target",
          "[cluster][budget_policy]") {
  SECTION("slo_headroom") {
    const HeadroomRun r = run_headroom("slo_headroom");
    INFO(r.invariants);
    CHECK(r.invariants_ok);
    // 15 s: a has finished about 14 requests whose TTFTs rise by ~0.5 s each (p90 several
    // seconds, several times its 1 s target); slo_headroom asks for ceil(1 x p90 / 1 s),
    // clamped to 4, and 3 starts do not fit (1 + 3 of 4 held). b's p90 is 10 ms (0.01 of its
    // target): a ranks higher and drains b's 2 replicas above min_replicas, idle, which turn
    // off at once; a starts 2 at 15 s and still waits for its third.
    const std::vector<Paid> expected = {{15 * kS, 1, 3}, {15 * kS, 1, 2}, {15 * kS, 1, 1}, {15 * kS, 3, 1}};
    CHECK(r.paid == expected);
    CHECK(count_of(r.result, "b", "gpu_budget_reclaims") == 2);
    CHECK(count_of(r.result, "a", "gpu_budget_reclaims_asked") == 2);
    CHECK(count_of(r.result, "a", "gpu_budget_reclaims") == 0);
  }
  SECTION("priority with equal priorities drains nothing") {
    const HeadroomRun r = run_headroom("priority");
    CHECK(r.invariants_ok);
    const std::vector<Paid> expected = {{15 * kS, 1, 3}};
    CHECK(r.paid == expected);
    CHECK(count_of(r.result, "b", "gpu_budget_reclaims") == 0);
  }
}

namespace {

// An autoscaled chat pool and a fixed small pool; `cluster_head`'s lines from line 14 on,
// then `pools:` and the two pools, one line each.
std::string two_pools(const std::string& cluster_head, const std::string& pool_a_tail, const std::string& fixed = "") {
  return "workload:\n"
         "  - class: chat\n"
         "    model: llama-3-8b\n"
         "    arrival: {process: poisson, rate: 4}\n"
         "    input: {fixed: 100}\n"
         "    output: {fixed: 10}\n"
         "  - class: small\n"
         "    model: llama-3.2-1b\n"
         "    arrival: {process: poisson, rate: 4}\n"
         "    input: {fixed: 100}\n"
         "    output: {fixed: 10}\n"
         "stop: {requests: 100}\n"
         "cluster:\n" +
         cluster_head +
         "  pools:\n"
         "    - {name: chat, model: llama-3-8b, hardware: h100-sxm, autoscale: {policy: in_flight, target: 4, "
         "max_replicas: 2}" + pool_a_tail + "}\n"
         "    - {name: small, model: llama-3.2-1b, hardware: h100-sxm" + fixed + "}\n";
}

}  // namespace

TEST_CASE("budget policy: the scenario reads budget_policy and priority", "[cluster][budget_policy][scenario]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write("s.yaml", two_pools("  gpus: 3\n  budget_policy: priority\n", ", priority: 7")));
  CHECK(s.cluster.budget_policy == "priority");
  CHECK(s.cluster.pools[0].priority == 7);
  CHECK(s.cluster.pools[1].priority == 0);
  const Scenario d = load_scenario(dir.write("d.yaml", two_pools("  gpus: 3\n", "")));
  CHECK(d.cluster.budget_policy == "first_come");
}

TEST_CASE("budget policy: bad keys name their line and key", "[cluster][budget_policy][scenario]") {
  struct Bad {
    std::string yaml;
    int line;
    std::string key, words;
  };
  const std::vector<Bad> cases = {
      {two_pools("  gpus: 3\n  budget_policy: fifo\n", ""), 15, "cluster.budget_policy",
       "unknown budget policy 'fifo'"},
      {two_pools("  budget_policy: priority\n", ""), 14, "cluster.budget_policy", "give gpus: N"},
      {two_pools("  gpus: 3\n", ", priority: 2"), 16, "cluster.pools.0.priority",
       "read only by cluster.budget_policy: priority, not by 'first_come'"},
      {two_pools("  gpus: 3\n  budget_policy: priority\n", ", priority: 2000000"), 17, "cluster.pools.0.priority",
       "must be within -1000000 .. 1000000"},
      {two_pools("  gpus: 3\n  budget_policy: priority\n", "", ", priority: 1"), 18, "cluster.pools.1.priority",
       "a fixed pool holds its GPUs for the whole run"},
      // slo_headroom ranks by the slo_headroom autoscaling policy's measure.
      {two_pools("  gpus: 3\n  budget_policy: slo_headroom\n", ""), 17, "cluster.pools.0.autoscale.policy",
       "pool 'chat' autoscales by 'in_flight': use policy slo_headroom"},
      {two_pools("  gpus: 3\n  budget_policy: slo_headroom\n", ", priority: 2"), 17, "cluster.pools.0.autoscale.policy",
       "use policy slo_headroom"},
  };
  for (const Bad& c : cases) {
    const ConfigError e = scenario_load_error(c.yaml);
    INFO(c.yaml << " -> " << e.what());
    CHECK(e.line() == c.line);
    CHECK(e.key() == c.key);
    CHECK(std::string(e.message()).find(c.words) != std::string::npos);
  }
}

}  // namespace budget_policy_test
