// Saturation: a queue that grows in proportion to arrivals is told from one that is merely
// long, early when the growth is plain, and a Simulation stops there when asked.
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/cluster/saturation_watch.h"
#include "sim/cluster/simulation.h"
#include "sim/scenario/model_loader.h"
#include "workload/workload_test_util.h"

namespace saturation_watch_test {

using namespace servesim;

namespace {

using servesim::testing::dist;

}  // namespace

namespace {

// Feeds `arrivals` observations with in_flight = slots + f(n); returns the arrival at which
// observe() first said stop (0 if never).
template <typename F>
std::int64_t feed(SaturationWatch& w, std::int64_t slots, std::int64_t arrivals, F excess) {
  std::int64_t stopped_at = 0;
  for (std::int64_t n = 1; n <= arrivals; ++n)
    if (w.observe(n, slots + excess(n), 0) && !stopped_at) stopped_at = n;
  return stopped_at;
}

}  // namespace

TEST_CASE("saturation: a backlog growing by half of all arrivals stops at the 1024th", "[sweep]") {
  SaturationWatch w(8);
  // Twice the capacity: half the arrivals stay queued.
  const auto at = feed(w, 8, 5000, [](std::int64_t n) { return n / 2; });
  CHECK(at == SaturationWatch::kEarliestCheck);
  CHECK(w.tripped_early());
  CHECK(w.saturated());
}

TEST_CASE("saturation: 2% overload is caught at the end - not early", "[sweep]") {
  SaturationWatch w(1);
  // Excess 0.02 n after 100000 arrivals is 2000, above max(1000, 3 sqrt(1e5) = 949).
  const auto at = feed(w, 1, 100000, [](std::int64_t n) { return n / 50; });
  CHECK(at == 0);
  CHECK_FALSE(w.tripped_early());
  CHECK(w.saturated());
}

TEST_CASE("saturation: a long but stable queue - or a short run - is not saturated", "[sweep]") {
  SaturationWatch stable(64);
  // Up to 500 waiting beyond full batches, oscillating, never trending.
  const auto at = feed(stable, 64, 200000, [](std::int64_t n) {
    return static_cast<std::int64_t>(250 + 250 * std::sin(static_cast<double>(n) / 300.0));
  });
  CHECK(at == 0);
  CHECK_FALSE(stable.saturated());

  // Backlog within the batch slots is work in service, not a queue.
  SaturationWatch busy(1000);
  feed(busy, 1000, 5000, [](std::int64_t n) { return -1000 + std::min<std::int64_t>(n / 5, 999); });
  CHECK_FALSE(busy.saturated());

  SaturationWatch tiny(1);
  feed(tiny, 1, 40, [](std::int64_t n) { return n; });
  CHECK_FALSE(tiny.saturated());  // fewer than 64 arrivals: too few to say
}

TEST_CASE("saturation: an overloaded M/D/1 simulation stops early and still conserves requests", "[sweep]") {
  PoolConfig pool;
  pool.model = load_model("llama-3-8b");
  pool.hardware = load_hardware("h100-sxm");
  pool.engine.policy = "continuous";
  pool.engine.max_num_seqs = 1;
  pool.engine.max_batched_tokens = 1'000'000;
  pool.engine.kv_cache_tokens = 10'000'000;
  pool.cost_model.kind = "constant";
  pool.cost_model.constant_step_ns = 10 * kNsPerMs;  // 100 req/s
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  ClassSpec c;
  c.arrival = ArrivalSpec{};
  c.arrival->rate_per_s = 300;  // rho = 3: two thirds of arrivals stay queued
  c.input = dist(DistSpec::Kind::fixed, 100);
  c.output = dist(DistSpec::Kind::fixed, 1);
  StopSpec stop;
  stop.requests = 100000;

  Simulation sim(3, stop, {c}, cluster);
  SaturationWatch watch(1);
  sim.set_stop_check([&](std::int64_t a, std::int64_t f) { return watch.observe(a, f, 0); });
  const RunResult r = sim.run();
  CHECK(r.aborted);
  CHECK_FALSE(r.stopped_by_time);
  CHECK(r.arrived == SaturationWatch::kEarliestCheck);
  CHECK(r.arrived == r.completed + r.rejected + r.unfinished);
  // In the time of 1024 arrivals at 300/s (~3.4 s) the server finishes ~341 (100/s), so about
  // 683 are still inside.
  CHECK(r.unfinished == Approx(1024.0 * 2 / 3).epsilon(0.1));

  // The same run without the observer simulates all 100000 requests.
  Simulation full(3, stop, {c}, cluster);
  const RunResult rf = full.run();
  CHECK_FALSE(rf.aborted);
  CHECK(rf.completed == 100000);
}

TEST_CASE("saturation: a backlog of never-scheduled requests counts while the slots are far from full", "[sweep]") {
  // 1,024 slots, 10 running (what the KV cache holds), and 5% of arrivals left waiting:
  // at 20,000 arrivals 1,000 wait (above the floor 3 sqrt(20,000) = 424, and 2.4 times the
  // 409 at arrival 8,192), 1,010 inside, never beyond the slots.
  SaturationWatch w(1024);
  for (std::int64_t n = 1; n <= 20000; ++n) w.observe(n, 10 + n / 20, n / 20);
  CHECK(w.saturated());
  CHECK(w.excess() == 1000);
  // The same in-flight figures with no waiting count: the slots hide the queue.
  SaturationWatch blind(1024);
  for (std::int64_t n = 1; n <= 20000; ++n) blind.observe(n, 10 + n / 20, 0);
  CHECK_FALSE(blind.saturated());
}

TEST_CASE("saturation: saturated_by names the cause counted most from the window start to the last arrival", "[sweep]") {
  constexpr int kSeqs = 0, kKv = 2;
  SaturationWatch w(8);
  for (std::int64_t n = 1; n <= 10000; ++n) {
    // Slot-bound steps early on (before arrival 4,096, the window's start for A = 10,000),
    // more of them in all than the KV-bound steps after it.
    if (n < 4096) {
      for (int k = 0; k < 3; ++k) w.note_blocked(kSeqs);
    } else {
      w.note_blocked(kKv);
    }
    w.observe(n, 8 + n / 4, n / 4);
  }
  // Steps after the last arrival (the drain) do not count.
  for (int k = 0; k < 100000; ++k) w.note_blocked(kSeqs);
  REQUIRE(w.saturated());
  const auto c = w.causes_in_window();
  CHECK(c[kSeqs] == 0);
  CHECK(c[kKv] == 10000 - 4096);  // arrivals 4,097 to 10,000 (4,096's step is in its snapshot)
  CHECK(w.saturated_by() == "kv_cache");

  // Saturated with no step that left anyone waiting: the backlog grew past the steps.
  SaturationWatch quiet(8);
  for (std::int64_t n = 1; n <= 10000; ++n) quiet.observe(n, 8 + n / 4, 0);
  CHECK(quiet.saturated_by() == "compute");

  // Not saturated: none, whatever was counted.
  SaturationWatch stable(8);
  for (std::int64_t n = 1; n <= 10000; ++n) {
    stable.note_blocked(kKv);
    stable.observe(n, 8, 3);
  }
  CHECK(stable.saturated_by() == "none");
}

}  // namespace saturation_watch_test
