#pragma once
// `servesim replay` from its request to what it reports, one path for the CLI and the
// Python package: the inputs read and checked (read_replay_inputs), the deployment matched
// against the benchmark (check_benchmark_deployment), the replay run (run_replay), and its
// comparison as the console table and the JSON document. Plain types only, so the public
// header can offer it without reaching the scenario's types.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/study/replay_request.h"

namespace servesim {

struct ReplayOutcome {
  // The benchmark measured another deployment and `force` was not given: the lines saying
  // so are on `err`, and nothing was replayed (the CLI's exit 2).
  bool refused = false;
  nlohmann::ordered_json json;  // `servesim replay --json`'s document
  std::string table;            // the console table, then "N figures beyond the tolerance of T"
  int beyond_tolerance = 0;     // 0 without a tolerance
  // "the simulated deployment rejected R and left U unfinished of the replayed requests; ..."
  // when some were, else "".
  std::string shortfall;
};

// Throws ConfigError for bad input; the deployment check's doubts and forced mismatches
// are warnings on `err`, each line prefixed with `command` ("servesim replay").
ReplayOutcome replay_benchmark(const ReplayRequest& request, const std::string& command, std::ostream& err);

}  // namespace servesim
