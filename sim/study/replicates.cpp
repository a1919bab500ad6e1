#include "sim/study/replicates.h"

#include "sim/cluster/simulation.h"
#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario.h"
#include "sim/study/feasibility.h"

namespace servesim {

ReplicateIntervals run_replicates(const Scenario& s, const RunSummary& first, int replicates) {
  SS_ASSERT(replicates >= 2, "replicates are two runs or more");
  std::vector<RunSummary> runs = {first};
  std::vector<std::uint64_t> seeds = {s.seed};
  for (int k = 1; k < replicates; ++k) {
    const std::uint64_t seed = replicate_seed(s.seed, k);
    Simulation sim(seed, s.stop, s.workload, s.cluster);
    runs.push_back(sim.run().summary);
    seeds.push_back(seed);
  }
  return replicate_intervals(runs, seeds);
}

void check_replicates(int replicates, const std::string& key) {
  if (replicates < 1 || replicates > 1000)
    throw ConfigError("", 0, key, "must be a whole number from 1 to 1000, got " + std::to_string(replicates));
}

}  // namespace servesim
