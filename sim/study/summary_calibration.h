#pragma once
// Fitting a deployment's engine overheads to a benchmark's aggregate results
// (sim/workload/benchmark/benchmark_summary.h): the file has no requests to replay, so the
// workload is the scenario's, run once per load stage the file states, and the figures the
// tool reported (means and percentiles of TTFT, TPOT, ITL, E2E) are computed from the
// simulated requests the tool's own way and compared. The same search as the per-request
// calibration (overhead_calibration.h, search_overheads) moves the same knobs.
//
// Stages: stage 0 runs the scenario as it is (its stop.requests set to the file's request
// count when the scenario has none); a later stage runs it at that stage's rate (or
// concurrency) and request count, which the file states. The fit uses the stages named by
// fit_stages (default: stage 0) and is checked on the others.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/engine_config.h"
#include "sim/scenario/scenario.h"
#include "sim/study/overhead_calibration.h"
#include "sim/workload/benchmark/benchmark_summary.h"

namespace servesim {

// Whether the scenario's workload is the one the file states, stage by stage: the request
// count, the arrival process (rate, burstiness, even spacing, concurrency) and the mean
// prompt and output tokens of the completed requests (those from one run of each stage at
// the scenario's own overheads, within kLengthTolerance).
struct SummaryWorkloadCheck {
  std::vector<std::string> mismatches;  // each names the file's key and both values
  std::vector<std::string> notes;       // what servesim filled in or could not compare
};

// Mean prompt (or output) tokens within 10% of the file's: a few hundred requests drawn
// from one length distribution have a sample mean within a few percent of it (a
// distribution with cv 1 over 400 requests: standard error 5%), so a larger gap is another
// workload rather than sampling noise.
inline constexpr double kLengthTolerance = 0.10;

SummaryWorkloadCheck check_summary_workload(const BenchmarkSummary& summary, const Scenario& scenario);

// The scenario that stage `k` of `summary` runs (see above).
Scenario summary_stage_scenario(const Scenario& scenario, const BenchmarkSummary& summary, std::size_t k);

// A figure of the file beside the simulated one.
struct SummaryRow {
  std::string figure;   // SummaryFigure::name()
  double measured_ms = 0;
  double simulated_ms = 0;  // NaN when the simulation has no value for it
  double error = 0;         // simulated / measured - 1; NaN when measured is 0
  bool fitted = false;      // part of the objective
};

struct SummaryStageResult {
  std::string name;
  bool fitted_on = false;     // a fit stage (else a check stage)
  std::int64_t simulated_completed = 0;
  bool saturated = false;     // the simulated stage's arrivals outpaced the deployment
  std::vector<SummaryRow> rows;
  double objective = 0;       // mean squared relative error of its fitted rows
};

// Whether a summary figure enters the objective: the mean, p50 and p90 of TTFT, TPOT, E2E
// and NTPOT, as the per-request calibration (is_fitted_figure), and the mean of ITL (the
// gaps' percentiles depend on per-token times servesim does not keep; the mean is their
// total over their count).
bool is_fitted_summary_figure(const SummaryFigure& figure);

// Runs stage `k` under `overheads` (every pool's; the scenario's own when absent).
SummaryStageResult simulate_summary_stage(const Scenario& scenario, const BenchmarkSummary& summary, std::size_t k,
                                          const std::optional<EngineOverheads>& overheads);

struct SummaryCalibrationOptions {
  std::vector<std::string> knobs = {"per_step", "per_request"};
  int max_evaluations = 240;
  std::vector<int> fit_stages = {0};  // indexes into summary.stages
  // Searches from the start and from 1 and 2 units of every knob above it
  // (search_overheads): a stage's aggregates trade per-step against per-request time along
  // a shallow valley, where one simplex can stop short.
  int starts = 3;
};

// The objectives (OverheadFit) are over the fit stages.
struct SummaryCalibration : OverheadFit {
  std::vector<SummaryStageResult> before, after;  // every stage
};

// Throws ConfigError for a fit stage outside the file's stages, or when every stage is a
// fit stage of a file with several (nothing would check the fit).
SummaryCalibration calibrate_overheads_to_summary(const BenchmarkSummary& summary, const Scenario& scenario,
                                                  const SummaryCalibrationOptions& options);

// The fit in the per-request calibration's shape (the first fit stage as "fit", the first
// check stage as "held out"), for write_engine_profile.
OverheadCalibration as_overhead_calibration(const SummaryCalibration& fit);

}  // namespace servesim
