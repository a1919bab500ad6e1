#pragma once
// Fitting a deployment's engine overheads (the CPU time per step, per request and per
// sampled token that the kernels do not account for) to one real benchmark run, and
// checking the fit on requests it did not see: the last load stage when the run has
// several, otherwise alternate windows of the run (fit on the even ones, check on the odd).
// Only these knobs move; the cost model, the scheduler and the arrivals stay as they are.
#include <functional>
#include <string>
#include <vector>

#include "sim/engine/engine_config.h"
#include "sim/study/benchmark_replay.h"

namespace servesim {

// The knobs calibration may move: per_step, per_request, per_token (EngineOverheads).
const std::vector<std::string>& overhead_knob_names();

struct OverheadCalibrationOptions {
  std::vector<std::string> knobs = {"per_step", "per_request"};  // per_token on request (--fit)
  int max_evaluations = 240;  // replays; each is one simulation of the benchmark's requests
  int windows = 8;            // alternate windows when the run has a single stage
  // Searches, each from one more unit of every knob (search_overheads): the front end's
  // batch window and streamed-chunk wait make a replay's figures step in the overheads, and
  // one simplex can stop on a step short of the minimum.
  int starts = 2;
};

// A knob the benchmark cannot pin down: moving it by one unit (1 ms; 10 us for per_token)
// either way from the fit leaves every fitted figure as it was, so any value fits as well
// and the fitted one means nothing.
struct UnidentifiedKnob {
  std::string name;
  std::string why;      // in words
  std::string setting;  // the scenario setting under which it would show, "" if none is known
};

// What a fit of the overheads found, whatever it was fitted to: the requests of a run
// (OverheadCalibration) or a summary's aggregates (SummaryCalibration).
struct OverheadFit {
  std::vector<std::string> knobs;
  std::vector<UnidentifiedKnob> unidentified;  // of `knobs`; their fitted values are the start's
  EngineOverheads start;    // the scenario's first pool's overheads
  EngineOverheads fitted;
  std::string split;        // how the requests were divided, in words
  double objective_before = 0, objective_after = 0;
  int evaluations = 0;
};

struct OverheadCalibration : OverheadFit {
  ReplaySet fit_before, fit_after;        // the requests fitted on
  ReplaySet held_out_before, held_out_after;  // the requests checked on
};

// The figures calibration matches (a subset of ReplaySet::rows): TTFT, TPOT and E2E mean,
// p50 and p90. p99 and throughput are reported, not fitted (the tail of a short run and the
// arrival-bound throughput say little about overheads).
bool is_fitted_figure(const std::string& figure);

// The search calibration runs, for any objective of the overheads (the per-request replay
// here, a summary's aggregates in summary_calibration.h): Nelder-Mead over `knobs` from
// `start`, restarted while it gains, then the identifiability test (a knob whose unit
// step either way leaves `objective` where it is keeps the start's value and is listed in
// `unidentified`, with the async-scheduling setting of `pools` that would show it).
// `starts` > 1 searches again from start + k units of every knob (k = 1 .. starts - 1),
// each with `max_evaluations`, and keeps the best.
// Throws ConfigError for an unknown or empty list of knobs.
struct OverheadSearch {
  EngineOverheads fitted;
  std::vector<UnidentifiedKnob> unidentified;
  int evaluations = 0;
};
OverheadSearch search_overheads(const std::vector<std::string>& knobs, const EngineOverheads& start,
                                const std::vector<PoolConfig>& pools, int max_evaluations,
                                const std::function<double(const EngineOverheads&)>& objective, int starts = 1);

// Throws ConfigError for an unknown knob, or when no request completes under the
// scenario's own overheads. Knobs the fitted figures do not depend on are listed in
// `unidentified` and keep the start's value in `fitted`.
OverheadCalibration calibrate_overheads(const BenchmarkReplay& replay, const OverheadCalibrationOptions& options);

// Mean squared relative error of the fitted figures of `set` (its rows).
double calibration_objective(const ReplaySet& set);

}  // namespace servesim
