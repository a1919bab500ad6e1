#include "sim/report/benchmark_calibration_outcome.h"

#include <ostream>
#include <sstream>
#include <utility>

#include "sim/core/errors.h"
#include "sim/report/overhead_calibration_report.h"
#include "sim/report/replay_report.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/benchmark_calibration.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/benchmark_summary.h"

namespace servesim {
namespace {

// A refusal: exit 2, the lines saying why already on `err`.
BenchmarkCalibrationOutcome refused() {
  BenchmarkCalibrationOutcome outcome;
  outcome.exit_code = 2;
  return outcome;
}

nlohmann::ordered_json overheads_ms(const EngineOverheads& o) {
  return {{"per_step", o.per_step_ns / 1e6}, {"per_request", o.per_request_ns / 1e6}, {"per_token", o.per_token_ns / 1e6}};
}

nlohmann::ordered_json fit_json(const OverheadCalibration& fit, const std::string& source) {
  nlohmann::ordered_json unidentified = nlohmann::ordered_json::array();
  for (const UnidentifiedKnob& k : fit.unidentified)
    unidentified.push_back({{"knob", k.name}, {"why", k.why}, {"setting", k.setting}});
  return {{"source", source},
          {"knobs", fit.knobs},
          {"start_ms", overheads_ms(fit.start)},
          {"fitted_ms", overheads_ms(fit.fitted)},
          {"unidentified", unidentified},
          {"split", fit.split},
          {"evaluations", fit.evaluations},
          {"objective_before", fit.objective_before},
          {"objective_after", fit.objective_after}};
}

// The outcome of a fit: its tables, and its profile unless no knob could be identified.
BenchmarkCalibrationOutcome outcome_of(const OverheadCalibration& fit, const std::string& source,
                                       const std::string& report, const std::string& command,
                                       const std::string& base_preset, const std::string& benchmark) {
  BenchmarkCalibrationOutcome outcome;
  outcome.report = report;
  outcome.benchmark = benchmark;
  outcome.fit = fit_json(fit, source);
  if (fit.unidentified.size() == fit.knobs.size()) {
    outcome.exit_code = 1;
    return outcome;
  }
  outcome.profile = engine_profile_text(fit, command, base_preset, benchmark);
  return outcome;
}

// The aggregate path: the workload is the scenario's, checked against what the file states.
BenchmarkCalibrationOutcome calibrate_from_aggregates(const BenchmarkCalibrationRequest& request,
                                                      const Scenario& scenario, std::ostream& err) {
  const BenchmarkSummary summary = read_benchmark_summary(request.bench_path, request.format);
  if (!check_benchmark_deployment(summary.deployment, scenario, request.force, "servesim calibrate", err) ||
      !print_summary_workload_check(check_summary_workload(summary, scenario), request.bench_path, request.force, err))
    return refused();
  const SummaryCalibration fit = calibrate_to_aggregates(summary, scenario, request);
  print_unidentified_knobs(fit.unidentified, "this benchmark's figures", err);
  std::ostringstream report;
  print_summary_fit(fit, report);
  const std::string description = summary.format + " aggregates " + request.bench_path + " (" +
                                  std::to_string(summary.stages.size()) + " stage" +
                                  (summary.stages.size() == 1 ? "" : "s") + "; the workload is the scenario's)";
  return outcome_of(as_overhead_calibration(fit), "aggregates", report.str(),
                    benchmark_calibration_command(request, true), calibration_base_preset(scenario), description);
}

// The per-request path: the benchmark's requests replayed through the deployment.
BenchmarkCalibrationOutcome calibrate_from_requests(const BenchmarkCalibrationRequest& request,
                                                    const Scenario& scenario, std::ostream& err) {
  if (!request.fit_stages.empty()) {
    err << "servesim calibrate: --fit-stages applies to a file of aggregates; " << request.bench_path
        << " lists its requests, which calibration splits itself\n";
    return refused();
  }
  BenchmarkRun bench = read_benchmark(request.bench_path, request.format);
  if (!check_benchmark_deployment(bench, scenario, request.force, "servesim calibrate", err)) return refused();
  const BenchmarkReplay replay(scenario, std::move(bench));
  const OverheadCalibration fit = calibrate_to_requests(replay, request);
  print_unidentified_knobs(fit.unidentified, "this benchmark", err);
  std::ostringstream report;
  print_overhead_fit(fit, report);
  return outcome_of(fit, "requests", report.str(), benchmark_calibration_command(request, false),
                    calibration_base_preset(scenario), describe_benchmark(replay));
}

}  // namespace

BenchmarkCalibrationOutcome calibrate_from_benchmark(const BenchmarkCalibrationRequest& request, std::ostream& err) {
  if (request.max_evaluations < 1)
    throw option_error("--max-replays", std::to_string(request.max_evaluations), "must be at least 1");
  // The benchmark's requests replace the scenario's workload, so the scenario needs no stop.
  const Scenario scenario = load_deployment(request.scenario_path, request.sets);
  if (is_benchmark_summary(request.bench_path, request.format)) return calibrate_from_aggregates(request, scenario, err);
  return calibrate_from_requests(request, scenario, err);
}

}  // namespace servesim
