// Simulation::add_record_writer: a writer gets every record the sinks get, in their order,
// also in a run long enough for the metrics' worker thread to take over; and a run that a
// sink stops with an exception has handed the writer every record made before run() throws
// (what it writes to may go right after).
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/cluster/simulation.h"
#include "sim/metrics/recorder.h"
#include "sim/scenario/scenario_loader.h"

namespace record_writer_test {

using namespace servesim;

namespace {

Scenario bench(std::int64_t requests) {
  return load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/bench/throughput.yaml",
                       {"stop.requests=" + std::to_string(requests), "cluster.pools.0.replicas=4",
                        "workload.0.arrival.rate=16"});
}

struct Stop : std::runtime_error {
  Stop() : std::runtime_error("stop") {}
};

}  // namespace

TEST_CASE("record writer: every record of a long run - in the sinks' order", "[cluster]") {
  const std::int64_t requests = 3 * MetricsRecorder::kRequestsInPlace;
  const Scenario s = bench(requests);
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  std::vector<std::uint64_t> sunk, written;
  double sunk_cost = 0, written_cost = 0;
  sim.add_request_sink([&](const RequestRecord& r) {
    sunk.push_back(r.id);
    sunk_cost += r.cost_usd;
  });
  sim.add_record_writer([&](const RequestRecord& r) {
    written.push_back(r.id);
    written_cost += r.cost_usd;
  });
  const RunResult result = sim.run();
  CHECK(result.completed == requests);
  CHECK(sunk.size() == static_cast<std::size_t>(requests));
  CHECK(written == sunk);
  CHECK(written_cost == sunk_cost);
}

TEST_CASE("record writer: a run a sink stops has handed the writer its records when run() throws", "[cluster]") {
  const Scenario s = bench(4 * MetricsRecorder::kRequestsInPlace);
  const std::int64_t stop_at = 2 * MetricsRecorder::kRequestsInPlace;  // past the worker's start
  std::int64_t sunk = 0;
  auto written = std::make_unique<std::vector<std::uint64_t>>();
  {
    Simulation sim(s.seed, s.stop, s.workload, s.cluster);
    sim.add_request_sink([&](const RequestRecord&) {
      if (++sunk == stop_at) throw Stop();
    });
    std::vector<std::uint64_t>* out = written.get();
    sim.add_record_writer([out](const RequestRecord& r) { out->push_back(r.id); });
    CHECK_THROWS_AS(sim.run(), Stop);
    // What the writer writes to may go now, before the simulation does: nothing reaches it.
    const std::size_t seen = written->size();
    written.reset();
    CHECK(seen + 1 >= static_cast<std::size_t>(stop_at));  // every record before the failing one's sinks
    CHECK(seen <= static_cast<std::size_t>(stop_at));
  }
}

}  // namespace record_writer_test
