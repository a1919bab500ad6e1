#pragma once
// The replay study (`servesim replay`): a benchmark run's requests replayed through the
// deployment (sim/study/benchmark_replay.h), measured against simulated for the whole run
// and each load stage, and the figures beyond a tolerance counted.
#include <optional>
#include <vector>

#include "sim/study/benchmark_replay.h"

namespace servesim {

struct ReplayStudy {
  SimulatedReplay simulated;
  std::vector<ReplaySet> sets;  // the whole run, then each stage when there are several
  int beyond_tolerance = 0;     // figures whose |error| exceeds the tolerance (0 without one)
};

// `tolerance`: a fraction (0.1 for 10%), or none.
ReplayStudy run_replay(const BenchmarkReplay& replay, std::optional<double> tolerance);

// Figures whose |error| exceeds `tolerance` (a fraction), over every set; a figure with no
// error (one side missing) is never beyond.
int count_beyond(const std::vector<ReplaySet>& sets, double tolerance);

}  // namespace servesim
