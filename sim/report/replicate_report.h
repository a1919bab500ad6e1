#pragma once
// The console lines `servesim run --replicates K` adds: the headline figures as the mean
// over the K runs with their 95% intervals. summary.json's "replicates" has every figure.
#include <iosfwd>

#include "sim/metrics/replicate_intervals.h"

namespace servesim {

void print_replicate_intervals(const ReplicateIntervals& replicates, std::ostream& out);

}  // namespace servesim
