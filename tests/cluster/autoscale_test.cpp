// Autoscaled pools (docs/cluster.md, "Autoscaling"): the policies' rules, and the replica
// life cycle in runs whose every figure is known by hand (constant step times, constant
// arrivals at whole seconds, scale events placed between them).
#include <catch2/catch.hpp>

#include "cluster/cluster_test_util.h"
#include "sim/cluster/autoscaler.h"

namespace autoscale_test {

using namespace servesim;
using namespace servesim::test;

namespace {

constexpr Tick kMs = kNsPerMs;
constexpr Tick kS = kNsPerSec;

AutoscaleSpec schedule_spec(int max, int initial, std::vector<ScheduleStep> steps, Tick cold_start_ns) {
  AutoscaleSpec a;
  a.policy = "schedule";
  a.min_replicas = 1;
  a.max_replicas = max;
  a.initial_replicas = initial;
  a.schedule = std::move(steps);
  a.cold_start_ns = cold_start_ns;
  a.scale_down_delay_ns = 0;
  a.interval_ns = 15 * kS;
  return a;
}

struct Change {
  Tick at_ns;
  int active;
  int paid;
  bool operator==(const Change& o) const { return at_ns == o.at_ns && active == o.active && paid == o.paid; }
};

std::ostream& operator<<(std::ostream& os, const Change& c) {
  return os << "{" << c.at_ns << " ns, active " << c.active << ", paid " << c.paid << "}";
}

struct AutoscaledRun {
  RunResult result;
  std::vector<Change> changes;
  std::vector<RequestRecord> records;
  std::vector<Tick> paid_ns;  // per replica, up to the run's end
  std::vector<ReplicaPhase> phases_at_end;
};

// One pool of `step_ns` constant steps sized by `a`, one class of constant arrivals.
AutoscaledRun run_autoscaled(const AutoscaleSpec& a, Tick step_ns, double rate_per_s, std::int64_t output_tokens,
                             Tick stop_ns, const std::string& router = "least-outstanding") {
  PoolConfig pool = constant_pool("main", a.max_replicas, step_ns);
  pool.autoscale = a;
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  cluster.router = router;
  StopSpec stop;
  stop.time_ns = stop_ns;
  Simulation sim(7, stop, {burst_class("chat", rate_per_s, 10, output_tokens)}, cluster);
  Autoscaler* scaler = sim.pools()[0]->autoscaler();
  REQUIRE(scaler != nullptr);
  AutoscaledRun out;
  scaler->add_change_observer([&out, scaler](Tick now) { out.changes.push_back({now, scaler->active(), scaler->paid()}); });
  sim.add_request_sink([&out](const RequestRecord& r) { out.records.push_back(r); });
  out.result = sim.run();
  for (std::size_t i = 0; i < static_cast<std::size_t>(a.max_replicas); ++i) {
    out.paid_ns.push_back(scaler->replica_paid_ns(i, out.result.end_ns));
    out.phases_at_end.push_back(scaler->phase(i));
  }
  return out;
}

FleetObservation fleet(int provisioned, std::int64_t waiting, std::int64_t in_flight) {
  FleetObservation o;
  o.active = provisioned;
  o.provisioned = provisioned;
  o.waiting = waiting;
  o.in_flight = in_flight;
  return o;
}

const SummaryBlock& pool_block(const RunResult& r) { return r.summary.pools.at(0).second; }

}  // namespace

TEST_CASE("autoscale queue_depth and in_flight ask for ceil of the metric over the target", "[cluster][autoscale]") {
  AutoscaleSpec a;
  a.target = 2.5;
  auto queue = make_queue_depth_policy(a);
  auto in_flight = make_in_flight_policy(a);
  // waiting 7 of 12 inside: ceil(7 / 2.5) = 3, ceil(12 / 2.5) = 5; exact multiples stay.
  CHECK(queue->desired(fleet(4, 7, 12)) == 3);
  CHECK(in_flight->desired(fleet(4, 7, 12)) == 5);
  CHECK(queue->desired(fleet(4, 5, 10)) == 2);
  CHECK(in_flight->desired(fleet(4, 5, 10)) == 4);
  // Nothing inside asks for none: the autoscaler lifts it to min_replicas.
  CHECK(queue->desired(fleet(4, 0, 0)) == 0);
  CHECK(in_flight->desired(fleet(4, 0, 0)) == 0);
}

TEST_CASE("autoscale slo_headroom scales up in proportion and down one at a time", "[cluster][autoscale]") {
  AutoscaleSpec a;
  a.ttft_target_ns = 200 * kMs;
  a.scale_down_below = 0.5;
  auto policy = make_slo_headroom_policy(a);
  auto with_p90 = [](int n, Tick p90, int starting = 0) {
    FleetObservation o = fleet(n, 0, 5);
    o.starting = starting;
    o.ttft_p90_ns = p90;
    return o;
  };
  CHECK(policy->desired(with_p90(3, 400 * kMs)) == 6);      // twice the target: ceil(3 x 2)
  CHECK(policy->desired(with_p90(3, 220 * kMs)) == 4);      // ceil(3 x 1.1) = 4
  CHECK(policy->desired(with_p90(10, 201 * kMs)) == 11);    // ceil(10.05) = 11
  CHECK(policy->desired(with_p90(3, 400 * kMs, 1)) == 3);   // a replica still starting: wait for it
  CHECK(policy->desired(with_p90(3, 150 * kMs)) == 3);      // within the band
  CHECK(policy->desired(with_p90(3, 100 * kMs)) == 3);      // at half the target: still the band
  CHECK(policy->desired(with_p90(3, 99 * kMs)) == 2);       // under half: one fewer
  FleetObservation none = fleet(3, 0, 5);
  CHECK(policy->desired(none) == 3);  // requests inside but none finished: hold
  none.in_flight = 0;
  CHECK(policy->desired(none) == 2);  // empty: shrink
}

TEST_CASE("autoscale schedule asks for the latest step at or before now", "[cluster][autoscale]") {
  const AutoscaleSpec a = schedule_spec(5, 2, {{10 * kS, 4}, {20 * kS, 1}}, 0);
  auto policy = make_schedule_policy(a);
  FleetObservation o = fleet(2, 0, 0);
  o.now_ns = 10 * kS - 1;
  CHECK(policy->desired(o) == 2);
  o.now_ns = 10 * kS;
  CHECK(policy->desired(o) == 4);
  o.now_ns = 25 * kS;
  CHECK(policy->desired(o) == 1);
  CHECK(policy->next_change_after(0) == 10 * kS);
  CHECK(policy->next_change_after(10 * kS) == 20 * kS);
  CHECK_FALSE(policy->next_change_after(20 * kS).has_value());
}

TEST_CASE("autoscale schedule gives exact replica counts at exact times and gpu_hours from paid time",
          "[cluster][autoscale]") {
  // 1 replica, 3 from 100.3 s (10 s cold start), 1 from 200.3 s; 300 s in all. Requests
  // arrive at whole seconds and take 5 steps of 10 ms, so each finds every replica idle and
  // least-outstanding sends it to replica 0: the two extra replicas drain idle, at once.
  const Tick up = 100'300 * kMs, down = 200'300 * kMs, cold = 10 * kS, end = 300 * kS;
  const AutoscaledRun run = run_autoscaled(schedule_spec(3, 1, {{up, 3}, {down, 1}}, cold), 10 * kMs, 1.0, 5, end);
  const std::vector<Change> expected = {{up, 1, 3}, {up + cold, 2, 3}, {up + cold, 3, 3}, {down, 1, 1}};
  CHECK(run.changes == expected);
  REQUIRE(run.result.end_ns == end);
  CHECK(run.paid_ns == std::vector<Tick>{end, down - up, down - up});
  // Paid replica time x 1 GPU per replica: (300 + 100 + 100) s = 500/3600 GPU-hours.
  const double gpu_hours = 500.0 / 3600.0;
  CHECK(pool_block(run.result).get("gpu_hours") == Approx(gpu_hours).epsilon(1e-12));
  CHECK(run.result.summary.overall.get("gpu_hours") == Approx(gpu_hours).epsilon(1e-12));
  const double price = load_hardware("h100-sxm").price_per_gpu_hour;
  REQUIRE(price > 0);
  CHECK(pool_block(run.result).get("fleet_cost_usd") == Approx(gpu_hours * price).epsilon(1e-12));
  for (const RequestRecord& r : run.records) CHECK(r.replica_index == 0);
  CHECK(run.result.completed == 299);  // arrivals at 1..299 s; the one at 300 s is the stop's
}

TEST_CASE("autoscale cold start delays a new replica's first request by exactly cold_start", "[cluster][autoscale]") {
  // Requests of 1000 steps of 10 ms (10 s) keep replica 0 busy, so least-outstanding sends
  // the first arrival after the new replica is routable (57.55 s) to it: the one at 58 s.
  const Tick up = 50'300 * kMs, cold = 7'250 * kMs;
  const AutoscaledRun run = run_autoscaled(schedule_spec(2, 1, {{up, 2}}, cold), 10 * kMs, 1.0, 1000, 100 * kS);
  const std::vector<Change> expected = {{up, 1, 2}, {up + cold, 2, 2}};
  CHECK(run.changes == expected);
  Tick first_on_new = -1;
  for (const RequestRecord& r : run.records)
    if (r.replica_index == 1 && (first_on_new < 0 || r.arrival_ns < first_on_new)) first_on_new = r.arrival_ns;
  CHECK(first_on_new == 58 * kS);
  CHECK(run.paid_ns.at(1) == 100 * kS - up);  // paid from its start, cold start included
}

TEST_CASE("autoscale a draining replica takes no new request and leaves when its own are done",
          "[cluster][autoscale]") {
  // Two replicas under round-robin, each request 500 steps of 10 ms; the schedule asks for
  // one at 30.3 s, so one replica drains with requests inside.
  const Tick down = 30'300 * kMs, end = 120 * kS;
  const AutoscaledRun run =
      run_autoscaled(schedule_spec(2, 2, {{0, 2}, {down, 1}}, 0), 10 * kMs, 1.0, 500, end, "round-robin");
  REQUIRE(run.changes.size() == 2);
  CHECK(run.changes[0] == Change{down, 1, 2});  // draining: paid, not routable
  const Tick off_ns = run.changes[1].at_ns;
  CHECK(run.changes[1].active == 1);
  CHECK(run.changes[1].paid == 1);
  const int drained = run.phases_at_end[0] == ReplicaPhase::off ? 0 : 1;
  REQUIRE(run.phases_at_end[static_cast<std::size_t>(1 - drained)] == ReplicaPhase::active);
  std::int64_t on_drained = 0;
  Tick last_gpu_end = -1;
  for (const RequestRecord& r : run.records) {
    if (r.replica_index != drained) continue;
    ++on_drained;
    CHECK(r.arrival_ns < down);               // nothing routed to it once draining
    CHECK(r.outcome == Outcome::completed);   // and it finished what it held
    last_gpu_end = std::max(last_gpu_end, r.finish_ns - r.frontend_ns);
  }
  REQUIRE(on_drained >= 14);  // about half of the 30 arrivals before the drain
  CHECK(last_gpu_end > down);  // it did hold requests when the drain began...
  CHECK(off_ns == last_gpu_end);  // ...and left the moment its last one finished
  CHECK(run.paid_ns.at(static_cast<std::size_t>(drained)) == off_ns);
  CHECK(run.paid_ns.at(static_cast<std::size_t>(1 - drained)) == end);
}

TEST_CASE("autoscale scale-down waits for the stabilisation window", "[cluster][autoscale]") {
  // in_flight with an idle pool asks for min_replicas = 1 at every evaluation (10 s apart);
  // the 3 warm replicas count as asked for at t = 0, so a 60 s window keeps them until the
  // evaluation at 70 s, the first whose window [10 s, 70 s] no longer holds that.
  AutoscaleSpec a;
  a.policy = "in_flight";
  a.target = 4;
  a.min_replicas = 1;
  a.max_replicas = 3;
  a.initial_replicas = 3;
  a.cold_start_ns = 0;
  a.scale_down_delay_ns = 60 * kS;
  a.interval_ns = 10 * kS;
  // One request at 100 s (rate 0.01/s), 5 steps of 10 ms: nothing inside at any evaluation.
  const AutoscaledRun run = run_autoscaled(a, 10 * kMs, 0.01, 5, 150 * kS);
  const std::vector<Change> expected = {{70 * kS, 1, 1}};
  CHECK(run.changes == expected);
}

TEST_CASE("autoscale evaluations never keep an ended run alive", "[cluster][autoscale]") {
  // stop.requests: the run ends when the last request is done, as without autoscaling.
  AutoscaleSpec a = schedule_spec(2, 1, {{5'300 * kMs, 2}}, 0);
  PoolConfig pool = constant_pool("main", 2, 10 * kMs);
  pool.autoscale = a;
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  StopSpec stop;
  stop.requests = 10;
  Simulation sim(7, stop, {burst_class("chat", 1.0, 10, 5)}, cluster);
  const RunResult r = sim.run();
  CHECK(r.completed == 10);
  CHECK_FALSE(r.stopped_by_time);
  CHECK(r.end_ns == 10 * kS + 50 * kMs);  // the 10th arrival at 10 s, 5 steps of 10 ms
  // Replica 0 for the whole run, replica 1 from 5.3 s.
  CHECK(pool_block(r).get("gpu_hours") * 3600 == Approx((r.end_ns + r.end_ns - 5'300 * kMs) * 1e-9).epsilon(1e-12));
}

}  // namespace autoscale_test
