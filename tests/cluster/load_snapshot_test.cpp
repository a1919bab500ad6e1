// Routers read replica load snapshots that are refreshed only for replicas that marked a
// change (Pool, LoadChangeLog). These runs route a probe at the start of every step, from
// inside the run (as a closed loop or a hand-over does), and check that what the router
// then sees equals every replica's live figures: a missed mark shows as a stale replica.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/scenario/scenario_loader.h"

namespace load_snapshot_test {

using namespace servesim;

namespace {

struct Probe {
  std::int64_t checks = 0;
  std::int64_t stale = 0;
  std::string first_stale;
};

void check_pool(Pool& pool, Probe& probe, const RequestState& dummy, const char* when) {
  pool.route(dummy);
  const auto& view = pool.router_view();
  for (std::size_t i = 0; i < view.size(); ++i) {
    const Replica& r = *pool.replicas()[i];
    ++probe.checks;
    if (view[i].outstanding == r.outstanding() && view[i].waiting == r.num_waiting() &&
        view[i].running == r.num_running() && view[i].kv_usage == r.kv_usage())
      continue;
    if (probe.stale++ == 0)
      probe.first_stale = std::string(when) + ", pool " + pool.config().name + " replica " + std::to_string(i) +
                          ": seen " + std::to_string(view[i].outstanding) + " outstanding, " +
                          std::to_string(view[i].kv_usage) + " KV; live " + std::to_string(r.outstanding()) + ", " +
                          std::to_string(r.kv_usage());
  }
}

// Probes at every step's start (observers) and at every request's record (the sink is
// called where a finish or rejection hands over to the listener, mid-way through a step's
// end, as a closed loop's next submit is).
void watch(Simulation& sim, Probe& probe, const RequestState& dummy) {
  for (const auto& pool_ptr : sim.pools()) {
    Pool* pool = pool_ptr.get();
    for (const auto& replica : pool->replicas())
      replica->add_step_observer([pool, &probe, &dummy](int, Tick, const StepPlan&, const StepCost&) {
        check_pool(*pool, probe, dummy, "step start");
      });
  }
  sim.add_request_sink([&sim, &probe, &dummy](const RequestRecord&) {
    for (const auto& pool : sim.pools()) check_pool(*pool, probe, dummy, "request record");
  });
}

Probe run_probed(const std::string& scenario, const std::vector<std::string>& sets) {
  const Scenario s = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/" + scenario, sets);
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  Probe probe;
  RequestState dummy;
  dummy.spec.prompt_tokens = 100;
  dummy.spec.output_tokens = 10;
  watch(sim, probe, dummy);
  const RunResult r = sim.run();
  CHECK(r.summary.overall.get("completed") > 0);
  return probe;
}

}  // namespace

TEST_CASE("routers see live load on every replica in an open loop with timeouts", "[cluster][router][perf]") {
  // 8 replicas, least-kv (reads the KV usage that every step moves), a burst the replicas
  // cannot keep up with, so waiting requests time out (withdrawals) and replicas are busy
  // when requests arrive (submits that start no step).
  const Probe p = run_probed("scenarios/disaggregated.yaml",
                             {"stop.requests=600", "cluster.router.staleness=0", "cluster.router.name=least-kv",
                              "workload.0.arrival.rate=60", "cluster.admission.chat.timeout=2s"});
  INFO(p.first_stale);
  CHECK(p.checks > 3000);
  CHECK(p.stale == 0);
}

TEST_CASE("routers see live load on every replica in a closed loop", "[cluster][router][perf]") {
  // A closed loop submits the next request from inside a finishing step: the route runs
  // while the replica that finished is between its changes.
  const Probe p = run_probed("scenarios/speculative_concurrency.yaml",
                             {"stop.requests=300", "workload.0.arrival.concurrency=24",
                              "cluster.pools.0.replicas=6"});
  INFO(p.first_stale);
  CHECK(p.checks > 10000);
  CHECK(p.stale == 0);
}

}  // namespace load_snapshot_test
