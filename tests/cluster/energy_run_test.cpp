// A whole run with `cluster.energy` (docs/energy.md): the meter only watches, so every other
// figure is the run's without it; a constant-cost pool draws idle power on every GPU for
// the whole run; a power cap slows a roofline pool's prefill.
#include <catch2/catch.hpp>

#include <cmath>

#include <sstream>

#include "cluster/cluster_test_util.h"
#include "sim/report/console_report.h"

namespace energy_run_test {

using namespace servesim;
using namespace servesim::test;

namespace {

constexpr Tick kS = kNsPerSec;

const FieldGroup& energy_of(const SummaryBlock& b) {
  for (const FieldGroup& g : b.objects)
    if (g.name == "energy") return g;
  FAIL("no energy object");
  return b.objects.front();
}

double field(const FieldGroup& g, const std::string& name) {
  for (const auto& [n, v] : g.fields)
    if (n == name) return v;
  FAIL("no field " << name);
  return 0;
}

RunResult run(PoolConfig pool, bool energy, Tick stop_ns) {
  ClusterConfig cluster;
  cluster.pools.push_back(std::move(pool));
  if (energy) cluster.energy = EnergySpec{0.12};
  StopSpec stop;
  stop.time_ns = stop_ns;
  Simulation sim(7, stop, {burst_class("chat", 2.0, 2000, 50)}, cluster);
  return sim.run();
}

PoolConfig roofline_pool() {
  PoolConfig pool = constant_pool("main", 2, 1);
  pool.cost_model.kind = "roofline";
  return pool;
}

}  // namespace

TEST_CASE("energy run: steps without FLOPs or bytes leave every GPU at idle power all run", "[cluster][energy]") {
  // 3 replicas at tp 2 of the H100 SXM profile (idle_power_w 70) for 300 s: 6 x 300 s x
  // 70 W = 126,000 J, 0.035 kWh, 420 W mean and peak; USD 0.12 per kWh: USD 0.0042.
  PoolConfig pool = constant_pool("main", 3, 10 * kNsPerMs);
  pool.deployment.tp = 2;
  const RunResult r = run(pool, true, 300 * kS);
  REQUIRE(r.end_ns == 300 * kS);
  const FieldGroup& e = energy_of(r.summary.pools.at(0).second);
  CHECK(field(e, "energy_j") == Approx(126000).epsilon(1e-12));
  CHECK(field(e, "energy_kwh") == Approx(0.035).epsilon(1e-12));
  CHECK(field(e, "mean_power_w") == Approx(420).epsilon(1e-12));
  CHECK(field(e, "peak_power_w") == Approx(420).epsilon(1e-12));
  CHECK(field(energy_of(r.summary.overall), "energy_cost_usd") == Approx(0.0042).epsilon(1e-12));
  std::ostringstream out;
  print_console_report(r.summary, out);
  CHECK(out.str().find("energy: 0.035 kWh, mean 420 W, peak 420 W, ") != std::string::npos);
  CHECK(out.str().find(" J per output token, $0.0042\n") != std::string::npos);
  // The steps' energy (2 GPUs x 70 W x 10 ms = 1.4 J each) all went to the class: the
  // steps run, and the ones the end cut (counted when they start; at most one a replica).
  const FieldGroup& c = energy_of(class_block(r, "chat"));
  const double steps = (field(c, "prefill_energy_j") + field(c, "decode_energy_j")) / 1.4;
  CHECK(steps == Approx(std::round(steps)).margin(1e-6));
  CHECK(steps >= static_cast<double>(r.steps));
  CHECK(steps <= static_cast<double>(r.steps) + 3);
}

TEST_CASE("energy run: metering changes no other figure of the run", "[cluster][energy]") {
  const RunResult without = run(roofline_pool(), false, 60 * kS);
  const RunResult with = run(roofline_pool(), true, 60 * kS);
  CHECK(with.steps == without.steps);
  CHECK(with.end_ns == without.end_ns);
  for (const auto& [name, value] : without.summary.overall.fields) {
    INFO(name);
    CHECK((std::isnan(value) ? std::isnan(with.summary.overall.get(name)) : with.summary.overall.get(name) == value));
  }
  CHECK(without.summary.overall.objects.size() + 1 == with.summary.overall.objects.size());
  const FieldGroup& e = energy_of(with.summary.overall);
  // Between idle (2 x 70 W) and the TDP (2 x 700 W).
  CHECK(field(e, "mean_power_w") > 140);
  CHECK(field(e, "peak_power_w") <= 1400);
  CHECK(field(e, "peak_power_w") > field(e, "mean_power_w"));
}

TEST_CASE("energy run: a capped pool's quiet stretches run as one event with the same results", "[cluster][energy]") {
  // Without the meter a capped replica prices its decode runs at once (decode_run.cpp);
  // with it every step is its own event. The capped cost model prices both the same.
  PoolConfig capped = roofline_pool();
  capped.engine.power_cap_w = 300;
  const RunResult runs = run(capped, false, 60 * kS);
  const RunResult steps = run(capped, true, 60 * kS);
  CHECK(runs.steps == steps.steps);
  CHECK(runs.events < steps.events);
  for (const auto& [name, value] : runs.summary.overall.fields) {
    INFO(name);
    CHECK((std::isnan(value) ? std::isnan(steps.summary.overall.get(name)) : steps.summary.overall.get(name) == value));
  }
}

TEST_CASE("energy run: a power cap slows prefill and lowers the peak", "[cluster][energy]") {
  PoolConfig capped = roofline_pool();
  capped.engine.power_cap_w = 300;
  const RunResult free = run(roofline_pool(), true, 60 * kS);
  const RunResult slow = run(capped, true, 60 * kS);
  CHECK(slow.summary.overall.get("mean_ttft_ms") > free.summary.overall.get("mean_ttft_ms"));
  CHECK(field(energy_of(slow.summary.pools.at(0).second), "peak_power_w") <= 2 * 300 * (1 + 1e-9));
  CHECK(field(energy_of(free.summary.pools.at(0).second), "peak_power_w") > 2 * 300);
}

}  // namespace energy_run_test
