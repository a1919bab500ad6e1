#include "sim/study/streaming_capacity.h"

#include <cmath>
#include <cstdio>

namespace servesim {

std::vector<std::string> streaming_capacity_notes(const Scenario& scenario, const RunSummary& summary) {
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < scenario.cluster.pools.size() && i < summary.pools.size(); ++i) {
    const PoolConfig& pool = scenario.cluster.pools[i];
    const Tick per_token_ns = pool.engine.overheads.frontend_per_streamed_token_ns;
    if (per_token_ns <= 0 || pool.autoscale || pool.replicas <= 0) continue;
    // The mean over the run: a lower bound of the rate while the pool was busy.
    const double per_replica = summary.pools[i].second.get("output_throughput") / pool.replicas;
    const double writable = 1e9 / static_cast<double>(per_token_ns);
    if (!(per_replica > writable)) continue;
    char line[512];
    std::snprintf(line, sizeof line,
                  "pool %s streamed %.0f tokens/s per replica on average; one API-server process writes about %.0f "
                  "(overheads.frontend.per_streamed_token %.0f us of its CPU each), so a client would get several "
                  "tokens per chunk and longer gaps than this run's ITL, which does not model that limit "
                  "(docs/engine.md, \"Front-end latency\")",
                  pool.name.c_str(), per_replica, writable, static_cast<double>(per_token_ns) / 1e3);
    notes.emplace_back(line);
  }
  return notes;
}

}  // namespace servesim
