#pragma once
// The result table of `servesim sweep` (docs/sweeps.md): one row per point with its axis
// values, the summary figures and the Pareto mark, written as sweep.json and sweep.csv.
// Rows are held as JSON values, so a table read back from sweep.json writes out
// byte-identical: that is what makes `servesim merge` of shards equal the unsharded run.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/replicate_intervals.h"
#include "sim/metrics/summary.h"
#include "sim/study/pareto.h"
#include "sim/study/sweep_spec.h"

namespace servesim {

struct SweepTable {
  std::string scenario;                // the scenario's name
  std::string mode = "product";        // "product" | "zip"
  std::vector<std::string> axes;       // keys, in --axis order
  std::int64_t points = 0;             // in the whole sweep, every shard together
  std::optional<SweepShard> shard;     // set in one shard's table; absent when whole or merged
  std::vector<ParetoObjective> objectives = default_objectives();
  // What defines the sweep (sim/study/sweep_fingerprint.h), the same in every shard; null in
  // a table read from a sweep.json written without one.
  nlohmann::ordered_json defined_by;
  // What the sweep's scenario simulates before the axes apply (sim/study/scenario_context.h),
  // for the report's header and SLO lines; null in a table read from a sweep.json without one.
  nlohmann::ordered_json context;
  // {"point", "values": {axis: value}, "pareto", "pareto_excluded", "error", "summary": {field: value,
  // "classes": {NAME: {field: value}}}}, sorted by point.
  std::vector<nlohmann::ordered_json> rows;
};

// The summary.json fields a row keeps per class, in column order.
const std::vector<std::string>& sweep_fields();
// The fields a row keeps overall: sweep_fields() with "saturated" (0/1), "saturated_by"
// (the binding limit), "saturated_resource" (what raises throughput) and
// "too_short_to_judge" (0/1) after "unfinished" (sim/cluster/saturation_verdict.h),
// "sustained_offered_rate" and "sustained_served_rate" (req/s over the second half of the
// arrival span, sim/metrics/sustained_rate.h: throughput the drain after the last arrival
// does not dilute) after "request_throughput", then the cost fields.
const std::vector<std::string>& sweep_overall_fields();

// The cost fields, at the end of the overall ones and set by the sweep (add_sweep_cost):
// "cost_per_hour" (USD, every GPU of every pool at its price) and
// "paid_per_1m_output_tokens" (that hour's cost over the output tokens it served, as
// `search` reports cost_per_1m_output_tokens; summary.json's field of that name charges
// only decode work's GPU time).
bool is_cost_field(const std::string& field);

// The fields a --pareto objective may name: every overall field but the text one.
std::vector<std::string> pareto_fields();

// Sets a row's cost fields, before "classes". `cost_per_hour` nullopt (some GPU has no
// price) writes null for both, never a cost of 0. A failed row (no summary) is left as it is.
void add_sweep_cost(nlohmann::ordered_json& row, std::optional<double> cost_per_hour);

// One CSV cell of a table value (RFC 4180: quoted when it holds a comma, quote or newline;
// null is empty, booleans 1/0), shared by the sweep and search tables.
std::string table_csv_cell(const nlohmann::ordered_json& value);

// An axis value as JSON: a number when the whole text is one ("4", "0.5", "1e3"), else the
// text itself, so tables plot without parsing strings.
nlohmann::ordered_json axis_value_json(const std::string& text);

// One row. `summary` is null for a point that failed (then `error` says why). Per-class
// figures are kept only when the summary has two or more classes.
nlohmann::ordered_json make_sweep_row(std::size_t point, const std::vector<std::string>& axis_keys,
                                      const std::vector<std::string>& values, const RunSummary* summary,
                                      const std::string& error);

// Adds "replicates": {"n", "seeds", FIELD: {"mean", "lo", "hi"}} to a row, for the overall
// sweep fields the intervals cover; write_sweep_csv then adds FIELD_lo and FIELD_hi columns.
void add_sweep_replicates(nlohmann::ordered_json& row, const ReplicateIntervals& replicates);

// Recomputes every row's "pareto" over the rows in the table (pareto.h). A row whose figures
// cannot be judged is off the front and dominates nothing, like a failed one, and its
// "pareto_excluded" says why: "saturated" (its latencies describe a queue still growing) or
// "too_short_to_judge" (too few arrivals to tell whether it kept up); null otherwise.
void mark_pareto(SweepTable& table);

// The reason mark_pareto keeps a row off the front ("saturated", "too_short_to_judge"), or "".
std::string pareto_exclusion(const nlohmann::ordered_json& row);

// "N points are off the Pareto front because they cannot be judged: ..." naming the points
// for each reason, or "" when none is.
std::string pareto_exclusion_note(const SweepTable& table);

nlohmann::ordered_json sweep_table_to_json(const SweepTable& table);
void write_sweep_json(const SweepTable& table, std::ostream& out);
// Columns: point, each axis, pareto (1/0), pareto_excluded, error, each overall sweep field, then (when a
// row has replicates) FIELD_lo and FIELD_hi for each overall field with an interval, then
// classes.NAME.FIELD for every class seen. Cells are RFC 4180 quoted when needed; an
// absent figure is an empty cell.
void write_sweep_csv(const SweepTable& table, std::ostream& out);

// Reads a sweep.json (or a folder holding one). Throws ConfigError(path, 0, key, ...)
// naming the missing or malformed key.
SweepTable read_sweep_table(const std::string& path);
SweepTable sweep_table_from_json(const nlohmann::ordered_json& json, const std::string& path);

// True when `json` looks like a sweep table rather than a summary.json.
bool is_sweep_table_json(const nlohmann::ordered_json& json);

// Joins the shards of one sweep: same scenario, mode, axes, point count, objectives and
// "defined_by" (what defines the sweep: scenario text, axis values, --set, seed,
// replicates), no point twice, and (unless allow_missing) every point present. Recomputes
// the Pareto column over all rows. Throws ConfigError naming the offending file and what
// differs. Tables without "defined_by" cannot be checked that far: `warnings` (when given)
// gets one line naming them, and the merged table has no "defined_by".
SweepTable merge_sweep_tables(const std::vector<SweepTable>& tables, const std::vector<std::string>& paths,
                              bool allow_missing, std::vector<std::string>* warnings = nullptr);

}  // namespace servesim
