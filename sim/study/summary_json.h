#pragma once
// summary.json's content as JSON data: the run's figures in vLLM's benchmark field names,
// defined in docs/metrics.md. Keys keep a fixed order and numbers a
// fixed format, so equal runs give byte-identical files. Studies build their rows from it
// (sweep_table); sim/report/summary_writer.h writes the file.
#include <nlohmann/json.hpp>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"

namespace servesim {

struct Scenario;

// The overall fields in order, with "rejected_reasons": {reason: count} right after
// "rejected", then (when some class states an SLO) "slo_verdict": {"met", "missed"}, then
// "classes": {NAME: {same fields}}, "pools": {NAME: {same fields}} and, when known,
// "deployment": {"scenario", "pools": {NAME: {model, hardware, engine, tp, pp, ...}}}.
// Count fields are integers; a field that is not finite (no samples) becomes null.
nlohmann::ordered_json summary_to_json(const RunSummary& summary);

// Records in `summary` what ran: the scenario's file name and each pool's model, formats,
// hardware, parallelism, replicas, engine and cost model, as `scenario` configures them.
// Every study that runs a scenario calls it on the run's summary.
void describe_deployment(RunSummary& summary, const Scenario& scenario);

// "deployment" as summary_to_json writes it; null when `deployment` has no pools.
nlohmann::ordered_json deployment_to_json(const DeploymentInfo& deployment);

// One SummaryBlock as a JSON object (the body of the top level, a class or a pool).
nlohmann::ordered_json summary_block_to_json(const SummaryBlock& block);

// "replicates": {"n": K, "seeds": [...], FIELD: {"mean", "lo", "hi"}, ...}.
nlohmann::ordered_json replicates_to_json(const ReplicateIntervals& replicates);

}  // namespace servesim
