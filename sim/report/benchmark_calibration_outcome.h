#pragma once
// `servesim calibrate --from-benchmark` from its request to the engine profile it makes,
// one path for the CLI and the Python package: the request checked, the deployment loaded
// and matched against the benchmark, the fit to its requests (replayed) or to its
// aggregates (the scenario's workload, checked against the file's), and the profile's YAML
// with the fit's tables. Plain types only, so the public header can offer it without
// reaching the scenario's types.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/study/benchmark_calibration_request.h"

namespace servesim {

struct BenchmarkCalibrationOutcome {
  // 0: a profile; 1: no knob of the fit could be identified, so there is none (the fit's
  // tables are in `report`); 2: refused, with the lines saying why on `err`.
  int exit_code = 0;
  std::string profile;      // the engine profile's YAML ("" unless exit_code is 0)
  std::string benchmark;    // the benchmark, in words
  std::string report;       // the fit's tables, as the CLI prints them
  // The fit as values: "source" (requests or aggregates), "knobs", "start_ms" and
  // "fitted_ms" (per_step, per_request, per_token), "unidentified" ({knob, why, setting}),
  // "split", "evaluations", "objective_before" and "objective_after".
  nlohmann::ordered_json fit;
};

// Throws ConfigError for bad input (--max-replays below 1 among it); the deployment's and
// the workload's doubts, forced mismatches and unidentifiable knobs are warnings on `err`.
BenchmarkCalibrationOutcome calibrate_from_benchmark(const BenchmarkCalibrationRequest& request, std::ostream& err);

}  // namespace servesim
