#pragma once
// summary.json's content as JSON data: the run's figures in vLLM's benchmark field names
// (docs/INTERFACE.md), defined in docs/metrics.md. Keys keep a fixed order and numbers a
// fixed format, so equal runs give byte-identical files. Studies build their rows from it
// (sweep_table); sim/report/summary_writer.h writes the file.
#include <nlohmann/json.hpp>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"

namespace servesim {

// The overall fields in order, with "rejected_reasons": {reason: count} right after
// "rejected", then (when some class states an SLO) "slo_verdict": {"met", "missed"}, then
// "classes": {NAME: {same fields}} and "pools": {NAME: {same fields}}.
// Count fields are integers; a field that is not finite becomes null.
nlohmann::ordered_json summary_to_json(const RunSummary& summary);

// One SummaryBlock as a JSON object (the body of the top level, a class or a pool).
nlohmann::ordered_json summary_block_to_json(const SummaryBlock& block);

// "replicates": {"n": K, "seeds": [...], FIELD: {"mean", "lo", "hi"}, ...}.
nlohmann::ordered_json replicates_to_json(const ReplicateIntervals& replicates);

}  // namespace servesim
