// Per-class admission: queue limits and timeouts, counted with their reasons, never lost.
#include <catch2/catch.hpp>

#include "tests/cluster/cluster_test_util.h"

namespace admission_test {

using namespace servesim;

namespace {

// Ten requests arriving 1 us apart (the first at 1 us) on one replica that serves one at a time in 10 ms steps
// (output 1: each request is one prefill step).
RunResult run_burst(ClassAdmission admission) {
  ClusterConfig cluster;
  cluster.pools.push_back(test::constant_pool("main", 1, 10 * kNsPerMs, 1));
  admission.class_name = "chat";
  cluster.admission.push_back(admission);
  StopSpec stop;
  stop.requests = 10;
  Simulation sim(1, stop, {test::burst_class("chat", 1e6, 100, 1)}, cluster);
  return sim.run();
}

}  // namespace

TEST_CASE("a queue limit of 3 admits the request in service and 3 waiting and refuses the other 6", "[cluster][admission]") {
  ClassAdmission a;
  a.queue_limit = 3;
  const RunResult r = run_burst(a);
  // The first starts at once (not waiting); the next 3 wait; the 6 after find the queue full.
  CHECK(r.arrived == 10);
  CHECK(r.completed == 4);
  CHECK(r.rejected == 6);
  const SummaryBlock& chat = test::class_block(r, "chat");
  CHECK(test::reason_count(chat, "queue_full") == 6);
  CHECK(chat.get("rejected") == 6);
  CHECK(r.arrived == r.completed + r.rejected + r.unfinished);
}

TEST_CASE("a timeout of 25 ms lets the requests scheduled by then through and times out the rest", "[cluster][admission]") {
  ClassAdmission a;
  a.timeout_ns = 25 * kNsPerMs;
  const RunResult r = run_burst(a);
  // Starts at 0, 10 and 20 ms; the 4th would start at 30 ms, after its deadline (~25 ms).
  CHECK(r.completed == 3);
  CHECK(test::reason_count(test::class_block(r, "chat"), "timed_out") == 7);
  CHECK(r.rejected == 7);
  // The run ends with the 3rd completion: the first arrival (1 us) plus three 10 ms steps.
  CHECK(static_cast<double>(r.end_ns) == Approx(30.0 * kNsPerMs + 1000).margin(10));
  CHECK(r.arrived == r.completed + r.rejected + r.unfinished);
}

TEST_CASE("without limits every request of the burst completes", "[cluster][admission]") {
  const RunResult r = run_burst(ClassAdmission{});
  CHECK(r.completed == 10);
  CHECK(r.rejected == 0);
}

}  // namespace admission_test
