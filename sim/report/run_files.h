#pragma once
// One run of a scenario with the files `servesim run` writes: requests.csv as requests
// finish, timeseries.csv, trace.json and benchmark-tool files as the scenario's outputs
// ask, and summary.json last (with the replicates' intervals when asked). Every file is
// written to PATH.partial and renamed when complete, and files an earlier run left in the
// folder that this run does not write are removed, so a folder never mixes two runs.
#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/run_result.h"

namespace servesim {

struct Scenario;

struct RunFilesOptions {
  std::string out_dir;
  int replicates = 1;                  // >= 2: also run the seeds after the scenario's
  bool check_invariants = false;       // docs/INVARIANTS.md at every step and request
  std::ostream* progress = nullptr;    // a terminal for the progress line, or none
  std::ostream* notes = nullptr;       // where "removed a stale file" notes go, or none
  // Set from another thread (a signal handler, Python's Ctrl-C) to stop the run at the
  // next finished request; run_to_files then throws RunInterrupted and commits no file.
  const std::atomic<bool>* interrupt = nullptr;
};

struct RunFilesOutcome {
  RunResult result;
  std::optional<ReplicateIntervals> intervals;
  std::vector<std::string> written;  // paths, summary.json first
  double wall_s = 0;
  // With check_invariants: whether every invariant held (else nothing was written), the
  // violations, and the steps checked.
  bool invariants_ok = true;
  std::string invariant_report;
  std::int64_t invariant_steps = 0;
};

struct RunInterrupted : std::runtime_error {
  RunInterrupted() : std::runtime_error("the run was interrupted") {}
};

// Runs `scenario` (its own seed) and writes its files to options.out_dir, creating it.
// Throws ConfigError for a folder that cannot be written or a scenario the cluster
// refuses (named by the scenario's file).
RunFilesOutcome run_to_files(const Scenario& scenario, const RunFilesOptions& options);

}  // namespace servesim
