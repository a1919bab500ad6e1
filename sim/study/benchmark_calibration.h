#pragma once
// The engine-overhead calibration of `servesim calibrate --from-benchmark`: the request as
// the user gives it, turned into the fits of sim/study/overhead_calibration.h (replaying a
// benchmark's requests) and sim/study/summary_calibration.h (a file of aggregates only),
// and the command line the written engine profile records.
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/study/benchmark_calibration_request.h"
#include "sim/study/benchmark_replay.h"
#include "sim/study/overhead_calibration.h"
#include "sim/study/summary_calibration.h"
#include "sim/workload/benchmark/benchmark_summary.h"

namespace servesim {

// The knobs of `fit_list`, in order (empty items skipped).
std::vector<std::string> calibration_knobs(const BenchmarkCalibrationRequest& request);

// Fits the overheads so that replaying the benchmark's requests matches their figures.
OverheadCalibration calibrate_to_requests(const BenchmarkReplay& replay, const BenchmarkCalibrationRequest& request);

// Fits the overheads so that the scenario's workload matches the file's aggregates on the
// stages of `fit_stages`. Throws ConfigError (key "--fit-stages") for an item that is not
// a stage number.
SummaryCalibration calibrate_to_aggregates(const BenchmarkSummary& summary, const Scenario& scenario,
                                           const BenchmarkCalibrationRequest& request);

// The `servesim calibrate --from-benchmark` line that makes the profile: the benchmark, the
// scenario and its --set overrides, and --fit (from aggregates always, from requests when
// given) and --fit-stages when given.
std::string benchmark_calibration_command(const BenchmarkCalibrationRequest& request, bool aggregates);

// The engine preset of the scenario's first pool, which the profile starts from ("" none).
std::string calibration_base_preset(const Scenario& scenario);

}  // namespace servesim
