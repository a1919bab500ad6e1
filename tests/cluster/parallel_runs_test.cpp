// Independent runs on threads: every index once, results by index, errors rethrown.
#include <catch2/catch.hpp>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "sim/cluster/parallel_runs.h"
#include "sim/cluster/simulation.h"
#include "sim/scenario/model_loader.h"
#include "workload/workload_test_util.h"

namespace parallel_runs_test {

using namespace servesim;

namespace {

using servesim::testing::dist;

}  // namespace

TEST_CASE("parallel runs: every index runs exactly once - whatever the number of jobs", "[sweep]") {
  for (int jobs : {1, 2, 3, 8, 100}) {
    std::vector<int> ran(57, 0);
    std::vector<std::uint64_t> square(57, 0);
    run_parallel(ran.size(), jobs, [&](std::size_t i) {
      ++ran[i];  // each task touches only its own slot
      square[i] = i * i;
    });
    for (std::size_t i = 0; i < ran.size(); ++i) {
      CHECK(ran[i] == 1);
      CHECK(square[i] == i * i);
    }
  }
  int calls = 0;
  run_parallel(0, 4, [&](std::size_t) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("parallel runs: the error of the lowest failing index is rethrown after all threads stop", "[sweep]") {
  for (int jobs : {1, 4}) {
    std::atomic<int> finished{0};
    try {
      run_parallel(40, jobs, [&](std::size_t i) {
        if (i == 3) throw std::runtime_error("three");
        ++finished;
      });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "three");
    }
    CHECK(finished.load() >= 3);  // 0, 1, 2 always ran before (jobs 1) or alongside
    CHECK(finished.load() < 40);  // later tasks stop starting
  }
}

TEST_CASE("parallel runs: simulations on two threads give the same summaries as one by one", "[sweep]") {
  PoolConfig pool;
  pool.model = load_model("llama-3-8b");
  pool.hardware = load_hardware("h100-sxm");
  pool.engine.policy = "chunked-prefill";
  pool.engine.max_num_seqs = 16;
  pool.engine.kv_cache_tokens = 200000;
  pool.cost_model.kind = "constant";
  pool.cost_model.constant_step_ns = 5 * kNsPerMs;
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  std::vector<ClassSpec> workloads(4);
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    workloads[i].arrival = ArrivalSpec{};
    workloads[i].arrival->rate_per_s = 20.0 * static_cast<double>(i + 1);
    workloads[i].input = dist(DistSpec::Kind::uniform, 50, 500);
    workloads[i].output = dist(DistSpec::Kind::uniform, 1, 40);
  }
  StopSpec stop;
  stop.requests = 2000;
  auto run_all = [&](int jobs) {
    std::vector<double> p99(workloads.size());
    run_parallel(workloads.size(), jobs, [&](std::size_t i) {
      Simulation sim(7, stop, {workloads[i]}, cluster);
      p99[i] = sim.run().summary.overall.get("p99_e2el_ms");
    });
    return p99;
  };
  const auto serial = run_all(1), threaded = run_all(2);
  CHECK(serial == threaded);
  CHECK(serial[0] != serial[3]);  // the points differ, so equality means something
}

}  // namespace parallel_runs_test
