// The one saturation rule (sim/cluster/saturation_verdict.h): a backlog that grows, or a
// served rate short of the offered one on a run long enough to tell, says saturated; a run
// too short to tell says so; and the resource named is the one whose increase raises
// throughput, by the step mix.
#include <catch2/catch.hpp>

#include "sim/cluster/saturation_verdict.h"
#include "sim/metrics/request_record.h"

namespace saturation_verdict_test {

using namespace servesim;

namespace {

// 4,001 arrivals 0.1 s apart (10 req/s offered); a request i completes at `finish(i)`
// seconds, or never when it returns < 0. The watch sees a backlog of `excess(n)` after
// arrival n, and a step left the queue's head waiting for `cause` after each arrival.
template <typename Finish, typename Excess>
SaturationVerdict judge(Finish finish, Excess excess, int cause, const StepBoundTime& bound, double tol = 0.05) {
  SaturationWatch watch(0);
  SustainedRateMeter meter;
  for (int i = 0; i <= 4000; ++i) {
    const Tick arrival = static_cast<Tick>(0.1 * i * 1e9);
    meter.note_arrival(arrival);
    watch.observe(i + 1, excess(i + 1), 0);
    if (cause >= 0) watch.note_blocked(cause);
  }
  for (int i = 0; i <= 4000; ++i) {
    RequestRecord r;
    r.arrival_ns = static_cast<Tick>(0.1 * i * 1e9);
    const double f = finish(i);
    r.outcome = f < 0 ? Outcome::unfinished : Outcome::completed;
    r.finish_ns = f < 0 ? -1 : static_cast<Tick>(f * 1e9);
    meter.add(r);
  }
  return judge_saturation(watch, meter, tol, bound);
}

constexpr int kKvCache = 2, kTokenBudget = 1;
const StepBoundTime kMemoryBound{1e9, 4e9};   // decode-heavy: weights read every step
const StepBoundTime kComputeBound{9e9, 1e9};  // prefill-heavy: FLOPs dominate

}  // namespace

TEST_CASE("saturation verdict: a run serving 80% of what arrives is saturated though its backlog looks flat",
          "[sweep]") {
  // The second case in small: the backlog test sees nothing (a flat 5), yet 8 of
  // the 10 req/s offered are served over the second half of the arrivals.
  const auto v = judge([](int i) { return i < 3200 ? 0.125 * i + 0.5 : -1.0; }, [](std::int64_t) { return 5; },
                       kKvCache, kMemoryBound);
  CHECK_FALSE(v.growing);
  CHECK(v.saturated);
  CHECK_FALSE(v.too_short);
  CHECK(v.sustained.served_per_s == Approx(8.0).epsilon(0.001));
  CHECK(v.by == "kv_cache");
  CHECK(v.resource == "kv_memory");  // memory-bound steps, batch held by the KV cache
  CHECK(v.note.find("served 7.998 of 10 req/s") != std::string::npos);
  CHECK(v.note.find("20% short") != std::string::npos);
}

TEST_CASE("saturation verdict: the same shortfall on compute-bound steps is short of compute", "[sweep]") {
  // The third case: the scheduler waits on the KV cache, but a bigger cache would
  // only batch more work into steps whose time grows with it.
  const auto v = judge([](int i) { return i < 3200 ? 0.125 * i + 0.5 : -1.0; }, [](std::int64_t) { return 5; },
                       kKvCache, kComputeBound);
  CHECK(v.saturated);
  CHECK(v.by == "kv_cache");
  CHECK(v.resource == "compute");
}

TEST_CASE("saturation verdict: a kept-up run is not saturated - a growing backlog is - whatever the rate", "[sweep]") {
  const auto kept = judge([](int i) { return 0.1 * i + 0.5; }, [](std::int64_t) { return 5; }, -1, kMemoryBound);
  CHECK_FALSE(kept.saturated);
  CHECK_FALSE(kept.too_short);
  CHECK(kept.by == "none");
  CHECK(kept.resource == "none");
  CHECK(kept.note.empty());
  // A backlog of a third of the arrivals: the watch trips at the 1,024th.
  const auto grew = judge([](int i) { return 0.1 * i + 0.5; }, [](std::int64_t n) { return n / 3; },
                          kTokenBudget, kMemoryBound);
  CHECK(grew.growing);
  CHECK(grew.saturated);
  CHECK(grew.by == "token_budget");
  CHECK(grew.resource == "memory_bandwidth");  // memory-bound, but not held by the KV cache
  CHECK(grew.note.find("the backlog grew without bound") == 0);
}

TEST_CASE("saturation verdict: a run too short to tell says so and is not called saturated", "[sweep]") {
  // A 1% tolerance: the noise, sqrt(2 x 10 x 0.5) / (10 x 199) = 0.16%, needs 3 x 0.16% =
  // 0.48% < 1%, so 10 s latencies do it: sqrt(2 x 10 x 10) / 1992 = 0.71%, 3 x 0.71% > 1%.
  const auto v = judge([](int i) { return 0.1 * i + 10; }, [](std::int64_t) { return 0; }, -1, kMemoryBound, 0.01);
  CHECK_FALSE(v.saturated);
  CHECK(v.too_short);
  CHECK(v.sustained.needed_scale > 1);
  CHECK(v.note.find("too short to judge a 1% shortfall") == 0);
}

TEST_CASE("saturation verdict: the resource follows the step mix", "[sweep]") {
  CHECK(saturated_resource("kv_cache", kComputeBound) == "compute");
  CHECK(saturated_resource("max_num_seqs", kComputeBound) == "compute");
  CHECK(saturated_resource("kv_cache", kMemoryBound) == "kv_memory");
  CHECK(saturated_resource("max_num_seqs", kMemoryBound) == "memory_bandwidth");
  CHECK(saturated_resource("kv_cache", StepBoundTime{}) == "kv_memory");  // a constant step cost
  CHECK(saturated_resource("compute", StepBoundTime{}) == "unknown");
}

TEST_CASE("saturation verdict: a closed loop offers what it serves - at any length", "[sweep]") {
  // Twenty requests, each sent when the one before completed: nothing to judge, nothing short.
  SaturationWatch watch(0);
  SustainedRateMeter meter;
  for (int i = 0; i < 20; ++i) {
    RequestRecord r;
    r.arrival_ns = static_cast<Tick>(i * 1e9);
    r.finish_ns = r.arrival_ns + static_cast<Tick>(1e9);
    meter.note_arrival(r.arrival_ns);
    watch.observe(i + 1, 1, 0);
    meter.add(r);
  }
  const auto open = judge_saturation(watch, meter, 0.05, kMemoryBound);
  CHECK(open.too_short);
  const auto closed = judge_saturation(watch, meter, 0.05, kMemoryBound, true);
  CHECK_FALSE(closed.saturated);
  CHECK_FALSE(closed.too_short);
  CHECK(closed.note.empty());
}

namespace {

// A pool's watch over 4,096 arrivals: `inside(n)` requests inside after arrival n, none of
// them beyond its `slots` unscheduled, and a step blocked by `cause` after each arrival.
template <typename Inside>
SaturationWatch pool_watch(std::int64_t slots, Inside inside, int cause) {
  SaturationWatch w(slots);
  for (std::int64_t n = 1; n <= 4096; ++n) {
    w.observe(n, inside(n), 0);
    w.note_blocked(cause);
  }
  return w;
}

SaturationVerdict saturated_by_rate() {
  SaturationVerdict v;
  v.saturated = true;
  v.by = "max_num_seqs";
  v.resource = "memory_bandwidth";  // what the run's totals say
  return v;
}

constexpr int kMaxNumSeqs = 0;

}  // namespace

TEST_CASE("saturation verdict: the pool whose backlog grew names the limit and the resource", "[sweep][saturation]") {
  // Prefill pool of 16 slots whose requests inside grow by a quarter of the arrivals: its
  // backlog beyond the slots, n/4, is 256 at arrival 1,024, past max(1024/16, 8 sqrt(1024))
  // = 256 after growing by half twice, so the growth test trips (saturation_watch.h). A
  // decode pool steady at 200 inside its 256 slots has no backlog. The decode pool's
  // memory-bound time is four times the prefill pool's compute-bound time, so the run's
  // totals name memory bandwidth; the prefill pool, the one short, is compute-bound.
  const SaturationWatch prefill = pool_watch(16, [](std::int64_t n) { return 16 + n / 4; }, kTokenBudget);
  const SaturationWatch decode = pool_watch(256, [](std::int64_t) { return 200; }, kMaxNumSeqs);
  REQUIRE(prefill.saturated());
  REQUIRE_FALSE(decode.saturated());
  SaturationVerdict v = saturated_by_rate();
  name_binding_pool(v, {{"prefill", &prefill, {2e9, 1e9}}, {"decode", &decode, {0.5e9, 8e9}}});
  CHECK(v.pool == "prefill");
  CHECK(v.by == "token_budget");
  CHECK(v.resource == "compute");
  REQUIRE(v.pools.size() == 2);
  CHECK(v.pools[0].resource == "compute");
  CHECK(v.pools[1].by == "none");
  CHECK(v.pools[1].resource == "none");
}

TEST_CASE("saturation verdict: with no pool past the growth test the pool whose requests inside grew binds",
          "[sweep][saturation]") {
  // Saturated by its served rate; the decode pool's requests inside grew from 100 (at
  // arrival 2,048, the window's start) to 140, within its 256 slots; the prefill pool's
  // fell from 10 to 8. Only the decode pool grew: it binds, with its own cause and mix.
  const SaturationWatch prefill = pool_watch(16, [](std::int64_t n) { return n <= 2048 ? 10 : 8; }, kTokenBudget);
  const SaturationWatch decode =
      pool_watch(256, [](std::int64_t n) { return n <= 2048 ? 100 : 140; }, kMaxNumSeqs);
  REQUIRE_FALSE(prefill.saturated());
  REQUIRE_FALSE(decode.saturated());
  CHECK(decode.inside_growth() == 40);
  CHECK(prefill.inside_growth() == -2);
  SaturationVerdict v = saturated_by_rate();
  name_binding_pool(v, {{"prefill", &prefill, {2e9, 1e9}}, {"decode", &decode, {0.5e9, 8e9}}});
  CHECK(v.pool == "decode");
  CHECK(v.by == "max_num_seqs");
  CHECK(v.resource == "memory_bandwidth");
  CHECK(v.pools[0].resource == "none");

  // Neither grew: the pool is unknown, and the run's totals stand.
  const SaturationWatch flat = pool_watch(16, [](std::int64_t) { return 10; }, kTokenBudget);
  SaturationVerdict u = saturated_by_rate();
  name_binding_pool(u, {{"prefill", &flat, {2e9, 1e9}}, {"decode", &flat, {0.5e9, 8e9}}});
  CHECK(u.pool == "unknown");
  CHECK(u.resource == "memory_bandwidth");

  // Not saturated: nothing named.
  SaturationVerdict calm;
  name_binding_pool(calm, {{"prefill", &prefill, {2e9, 1e9}}});
  CHECK(calm.pool == "none");
  CHECK(calm.pools.empty());
}

}  // namespace saturation_verdict_test
