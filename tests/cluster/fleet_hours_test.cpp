// GPU-hours and the paid cost of every pool, fixed or autoscaled (docs/metrics.md, "Fleet"):
// a fixed pool pays every replica from t = 0 to the run's end.
#include <catch2/catch.hpp>

#include <sstream>

#include "cluster/cluster_test_util.h"
#include "sim/report/console_report.h"

namespace fleet_hours_test {

using namespace servesim;
using namespace servesim::test;

namespace {

constexpr Tick kS = kNsPerSec;

// One fixed pool of 3 replicas at tp 2 (6 GPUs), constant 10 ms steps, one request a second
// for 300 s.
RunResult run_fixed(double price_per_gpu_hour) {
  PoolConfig pool = constant_pool("main", 3, 10 * kNsPerMs);
  pool.deployment.tp = 2;
  pool.hardware.price_per_gpu_hour = price_per_gpu_hour;
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  StopSpec stop;
  stop.time_ns = 300 * kS;
  Simulation sim(7, stop, {burst_class("chat", 1.0, 10, 5)}, cluster);
  return sim.run();
}

}  // namespace

TEST_CASE("fleet: a fixed pool's GPU-hours are replicas x GPUs per replica x simulated hours", "[cluster][fleet]") {
  const RunResult r = run_fixed(3.00);
  REQUIRE(r.stopped_by_time);
  REQUIRE(r.end_ns == 300 * kS);
  const SummaryBlock& pool = r.summary.pools.at(0).second;
  // 3 replicas x 2 GPUs x 300 s / 3600 s = 0.5 GPU-hours, at USD 3.00 each: USD 1.50.
  CHECK(pool.get("gpu_hours") == Approx(0.5).epsilon(1e-12));
  CHECK(pool.get("fleet_cost_usd") == Approx(1.5).epsilon(1e-12));
  CHECK(r.summary.overall.get("gpu_hours") == Approx(0.5).epsilon(1e-12));
  CHECK(r.summary.overall.get("fleet_cost_usd") == Approx(1.5).epsilon(1e-12));
  std::ostringstream out;
  print_console_report(r.summary, out);
  CHECK(out.str().find("fleet: 0.5 GPU-hours paid, $1.50") != std::string::npos);
}

TEST_CASE("fleet: a pool without a price gets GPU-hours and no cost rather than a cost of 0", "[cluster][fleet]") {
  const RunResult r = run_fixed(0);
  const SummaryBlock& pool = r.summary.pools.at(0).second;
  CHECK(pool.get("gpu_hours") == Approx(0.5).epsilon(1e-12));
  CHECK_FALSE(pool.has("fleet_cost_usd"));
  CHECK_FALSE(r.summary.overall.has("fleet_cost_usd"));
  std::ostringstream out;
  print_console_report(r.summary, out);
  CHECK(out.str().find("fleet: 0.5 GPU-hours paid; no cost: some pool's hardware has no price_per_gpu_hour") !=
        std::string::npos);
}

}  // namespace fleet_hours_test
