#pragma once
// `servesim calibrate --from-benchmark` as the user asks for it: its options, the Python
// package's arguments. Plain values only, so the public header (include/servesim/servesim.h)
// can offer it without reaching the scenario's types.
#include <string>
#include <vector>

namespace servesim {

struct BenchmarkCalibrationRequest {
  std::string bench_path;
  std::string format = "auto";  // auto | vllm-bench | inference-perf | guidellm
  std::string scenario_path;
  std::vector<std::string> sets;                  // --set overrides of the scenario
  std::string fit_list = "per_step,per_request";  // the knobs to fit, comma-separated
  bool fit_given = false;                         // the list was asked for, not the default
  std::string fit_stages;                         // aggregates: stages to fit on, "0,2"; "" stage 0
  // Most replays the search may run (--max-replays; the default is OverheadCalibrationOptions'
  // own), at least 1.
  int max_evaluations = 240;
  bool force = false;  // fit to a benchmark of another deployment, with a warning
};

}  // namespace servesim
