#include "sim/study/replicates.h"

#include "sim/cluster/simulation.h"
#include "sim/core/assert.h"

namespace servesim {

ReplicateIntervals run_replicates(const Scenario& s, const RunSummary& first, int replicates) {
  SS_ASSERT(replicates >= 2, "replicates are two runs or more");
  std::vector<RunSummary> runs = {first};
  std::vector<std::uint64_t> seeds = {s.seed};
  for (int k = 1; k < replicates; ++k) {
    const std::uint64_t seed = s.seed + static_cast<std::uint64_t>(k);
    Simulation sim(seed, s.stop, s.workload, s.cluster);
    runs.push_back(sim.run().summary);
    seeds.push_back(seed);
  }
  return replicate_intervals(runs, seeds);
}

}  // namespace servesim
