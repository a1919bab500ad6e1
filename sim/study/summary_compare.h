#pragma once
// `servesim compare`: two summary.json files, or two sweep tables, figure by figure, and
// whether a change goes beyond tolerance in the bad direction (docs/sweeps.md).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/sweep_table.h"

namespace servesim {

// Which way a figure gets worse. Latencies (*_ms) up; throughputs (*_throughput),
// completed, prefix_cache_hit_rate, slo_met, slo_attainment* and goodput* down; rejected,
// unfinished, backlog, saturated and unit prices (cost_per_*, paid_per_1m_output_tokens) up.
// Everything else (token totals, duration, ...) is reported but never a regression.
enum class Direction { higher_is_worse, lower_is_worse, neutral };
Direction field_direction(const std::string& field);

struct Tolerances {
  double default_fraction = 0.05;
  // "p99_ttft_ms" applies in every block; "classes.chat.p99_ttft_ms" (or, for sweeps,
  // "point.3.p99_ttft_ms") to one block only and wins over the plain name.
  std::map<std::string, double> per_field;
  double for_field(const std::string& block, const std::string& field) const;
};

struct FieldChange {
  std::string block;  // "overall", "classes.NAME", "pools.NAME", "point.3", "point.3.classes.NAME"
  std::string field;
  std::optional<double> baseline, candidate;  // nullopt: null in the file (no samples)
  double change = 0;                          // (candidate - baseline) / |baseline|; +-inf from 0
  double tolerance = 0;
  Direction direction = Direction::neutral;
  bool regression = false;  // worse than tolerance allows
  bool improved = false;    // better by more than tolerance
};

// A figure only one file has: a summary.json or sweep.json written by an older servesim
// lacks the columns added since, so the two are compared on the figures both have and the
// rest are listed, never dropped without a word.
struct SkippedField {
  std::string block;  // as FieldChange::block
  std::string field;
  bool missing_from_candidate = true;  // else missing from the baseline
};

// One thing the two runs deployed differently (summary.json's "deployment"): a key of one
// pool (model, weights, kv, hardware, tp, pp, ep, replicas, min_replicas, engine,
// engine_version, cost_model), or the scenario file (pool "", key "scenario").
struct DeploymentDifference {
  std::string pool;
  std::string key;
  std::string baseline, candidate;  // as the files write them; "none" when absent or null
};

// Whether the two summaries ran the same deployment. Figures of different models or hardware
// compare as a what-if (H100 against H200 is a question users ask), so a difference is stated,
// never silent; `compare --same-deployment` refuses it.
struct DeploymentCheck {
  bool checked = false;       // both files record their deployment
  std::string why_unchecked;  // else which file does not (written by an older servesim)
  std::vector<DeploymentDifference> differences;
};

struct Comparison {
  std::vector<FieldChange> changes;
  int regressions = 0;
  int compared = 0;  // gated (non-neutral) figures present in both files
  std::vector<SkippedField> skipped;
  // What else the two files differ in that the figures do not show: sweeps of differently
  // named scenarios, points only the candidate ran.
  std::vector<std::string> notes;
  // Summaries only (sweep tables record no deployment).
  std::optional<DeploymentCheck> deployment;
};

// Compares the overall block and every class and pool, on the figures both files have (the
// others go to `skipped`), and the two deployments (`deployment`). Throws ConfigError(path, 0, key, ...) naming the file that lacks a
// class or pool the other has (not the same scenario), and (baseline_path, ...) when the
// baseline is not a summary.json.
Comparison compare_summaries(const nlohmann::ordered_json& baseline, const nlohmann::ordered_json& candidate,
                             const std::string& baseline_path, const std::string& candidate_path,
                             const Tolerances& tolerances);

// The deployments of two summary.json files (their "deployment" blocks). Throws
// ConfigError(path, 0, "deployment...", ...) when a block is there but not of its form.
DeploymentCheck compare_deployments(const nlohmann::ordered_json& baseline, const nlohmann::ordered_json& candidate,
                                    const std::string& baseline_path, const std::string& candidate_path);

// Compares rows with the same point index. Throws ConfigError when the axes differ, a point
// of the baseline is missing from the candidate, or a point's axis values differ. A point
// that ran in the baseline but failed in the candidate is a regression (field "error").
// Points only the candidate has, and differing scenario names, go to `notes`.
Comparison compare_sweep_tables(const SweepTable& baseline, const SweepTable& candidate,
                                const std::string& baseline_path, const std::string& candidate_path,
                                const Tolerances& tolerances);

// Keys of --tolerance-for that match no field of the comparison (likely misspelt).
std::vector<std::string> unused_tolerances(const Comparison& c, const Tolerances& tolerances);

// Keys of --tolerance-for that match only figures that are never gated (token totals,
// duration, ...): their tolerance can fail nothing.
std::vector<std::string> ungated_tolerances(const Comparison& c, const Tolerances& tolerances);

}  // namespace servesim
