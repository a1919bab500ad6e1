#pragma once
// summary.json: the run's figures (sim/study/summary_json.h) written as the file, indented
// by two spaces, so equal runs give byte-identical files (docs/metrics.md).
#include <iosfwd>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"
#include "sim/study/summary_json.h"

namespace servesim {

// Writes summary_to_json(summary), indented by two spaces, and a final newline; with
// `replicates`, their intervals as a last top-level key.
void write_summary_json(const RunSummary& summary, std::ostream& out, const ReplicateIntervals* replicates = nullptr);

}  // namespace servesim
