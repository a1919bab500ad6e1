#pragma once
// `--replicates K`: a scenario run again with the seeds after its own (seed + 1 ..
// seed + K - 1), the first run's summary included, reduced to each figure's mean and 95%
// interval (sim/metrics/replicate_intervals.h).
#include <string>

#include "sim/metrics/replicate_intervals.h"

namespace servesim {

struct Scenario;

// REQUIRES: replicates >= 2; `first` is the summary of `s` run with its own seed.
ReplicateIntervals run_replicates(const Scenario& s, const RunSummary& first, int replicates);

// Throws ConfigError naming `key` unless 1 <= replicates <= 1000.
void check_replicates(int replicates, const std::string& key = "--replicates");

}  // namespace servesim
