#pragma once
// The replay study (`servesim replay`): a benchmark run's requests replayed through the
// deployment (sim/study/benchmark_replay.h), measured against simulated for the whole run
// and each load stage, and the figures beyond a tolerance counted.
#include <optional>
#include <string>
#include <vector>

#include "sim/study/benchmark_replay.h"
#include "sim/study/replay_request.h"
#include "sim/workload/benchmark/benchmark_run.h"

namespace servesim {

// What a replay is built from, read and checked: the tolerance, the benchmark file and the
// deployment. Whether the benchmark measured that deployment is the caller's to say
// (check_benchmark_deployment in sim/report/replay_report.h prints why not).
struct ReplayInputs {
  BenchmarkRun bench;
  Scenario deployment;             // its workload and stop are the benchmark's to replace
  std::optional<double> tolerance; // a fraction (0.1 for 10%)
};

// Reads `request`'s inputs in the order `servesim replay` reports their errors: the
// tolerance (an option error of --tolerance), the benchmark file, then the deployment
// (load_deployment: a scenario that needs no stop). Throws ConfigError.
ReplayInputs read_replay_inputs(const ReplayRequest& request);

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
