#pragma once
// A replay as the user asks for it: `servesim replay`'s options, the Python package's
// arguments. Plain values only, so the public header (include/servesim/servesim.h) can
// offer it without reaching the scenario's types.
#include <string>
#include <vector>

namespace servesim {

struct ReplayRequest {
  std::string bench_path;
  std::string scenario_path;
  std::string format = "auto";    // auto | vllm-bench | inference-perf | guidellm
  std::vector<std::string> sets;  // --set overrides of the scenario
  std::string tolerance;          // "10%" as --tolerance is written; "" none
  bool force = false;             // replay a benchmark of another deployment, with a warning
};

}  // namespace servesim
