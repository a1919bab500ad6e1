#include "sim/study/benchmark_calibration.h"

#include <algorithm>
#include <sstream>

#include "sim/core/errors.h"

namespace servesim {
namespace {

std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::vector<int> stage_numbers(const std::string& text) {
  std::vector<int> stages;
  for (const std::string& item : comma_items(text)) {
    const bool digits = !item.empty() && item.size() <= 6 &&
                        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      throw ConfigError("", 0, "--fit-stages", "'" + item + "' is not a stage number (0, 1, ...; comma-separated)");
    }
    stages.push_back(std::stoi(item));
  }
  return stages;
}

}  // namespace

std::vector<std::string> calibration_knobs(const BenchmarkCalibrationRequest& request) {
  return comma_items(request.fit_list);
}

OverheadCalibration calibrate_to_requests(const BenchmarkReplay& replay, const BenchmarkCalibrationRequest& request) {
  OverheadCalibrationOptions options;
  options.knobs = calibration_knobs(request);
  options.max_evaluations = request.max_evaluations;
  return calibrate_overheads(replay, options);
}

SummaryCalibration calibrate_to_aggregates(const BenchmarkSummary& summary, const Scenario& scenario,
                                           const BenchmarkCalibrationRequest& request) {
  SummaryCalibrationOptions options;
  options.knobs = calibration_knobs(request);
  options.max_evaluations = request.max_evaluations;
  if (!request.fit_stages.empty()) options.fit_stages = stage_numbers(request.fit_stages);
  return calibrate_overheads_to_summary(summary, scenario, options);
}

std::string benchmark_calibration_command(const BenchmarkCalibrationRequest& request, bool aggregates) {
  std::string command = "servesim calibrate --from-benchmark " + request.bench_path + " --scenario " +
                        request.scenario_path;
  for (const std::string& s : request.sets) command += " --set " + s;
  if (aggregates || request.fit_given) command += " --fit " + request.fit_list;
  if (aggregates && !request.fit_stages.empty()) command += " --fit-stages " + request.fit_stages;
  return command;
}

std::string calibration_base_preset(const Scenario& scenario) {
  return scenario.cluster.pools.empty() ? "" : scenario.cluster.pools.front().engine.preset;
}

}  // namespace servesim
