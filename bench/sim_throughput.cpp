// How fast does servesim simulate? Runs bench/throughput.yaml for N requests on R replicas
// and prints wall time, simulated requests per wall second, engine steps and peak memory.
//   usage: sim_throughput [REQUESTS] [REPLICAS] [--prefix-cache]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/io/scenario_loader.h"

int main(int argc, char** argv) {
  const long requests = argc > 1 ? std::atol(argv[1]) : 100000;
  const int replicas = argc > 2 ? std::atoi(argv[2]) : 16;
  const bool prefix = argc > 3 && std::string(argv[3]) == "--prefix-cache";
  const std::string path = std::string(SERVESIM_SOURCE_DIR_BENCH) + "/bench/throughput.yaml";
  std::vector<std::string> sets = {
      "stop.requests=" + std::to_string(requests),
      "cluster.pools.0.replicas=" + std::to_string(replicas),
      "workload.0.arrival.rate=" + std::to_string(4.0 * replicas),
  };
  if (prefix) sets.push_back("cluster.pools.0.engine.prefix_cache=true");
  try {
    const servesim::Scenario s = servesim::load_scenario(path, sets);
    const auto t0 = std::chrono::steady_clock::now();
    servesim::Simulation sim(s.seed, s.stop, s.workload, s.cluster);
    const servesim::RunResult r = sim.run();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf(
        "requests %ld  replicas %d  wall %.3f s  %.0f req/s  %.2f us/req  steps %lld  events %llu  "
        "peak RSS %.1f MB  simulated %.1f s  ttft p50 %.1f ms  itl p50 %.2f ms\n",
        requests, replicas, wall, requests / wall, 1e6 * wall / requests, static_cast<long long>(r.steps),
        static_cast<unsigned long long>(r.events), ru.ru_maxrss / 1024.0, servesim::seconds_from_ticks(r.end_ns),
        r.summary.overall.get("median_ttft_ms"), r.summary.overall.get("median_itl_ms"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_throughput: %s\n", e.what());
    return 2;
  }
  return 0;
}
