#pragma once
// summary.json: the run's figures (sim/study/summary_json.h) written as the file, indented
// by two spaces, so equal runs give byte-identical files (docs/metrics.md).
#include <iosfwd>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"
#include "sim/study/summary_json.h"

namespace servesim {

// What summary.json holds: summary_to_json(summary) and, with `replicates`, their intervals
// as a last top-level key.
nlohmann::ordered_json summary_file_json(const RunSummary& summary, const ReplicateIntervals* replicates = nullptr);

// Writes summary_file_json(summary, replicates), indented by two spaces, and a final newline.
void write_summary_json(const RunSummary& summary, std::ostream& out, const ReplicateIntervals* replicates = nullptr);

}  // namespace servesim
