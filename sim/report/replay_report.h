#pragma once
// Printing a replay's comparison (servesim replay, servesim calibrate --from-benchmark):
// a console table per set of requests, and the JSON document.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/replay_study.h"

namespace servesim {

// The benchmark line and the simulated outcome, then one table per set.
void print_replay(const BenchmarkReplay& replay, const SimulatedReplay& simulated, const std::vector<ReplaySet>& sets,
                  std::ostream& out);
// One set's table: figure, measured, simulated, signed error.
void print_replay_set(const ReplaySet& set, std::ostream& out);
nlohmann::ordered_json replay_set_json(const ReplaySet& set);
nlohmann::ordered_json replay_json(const BenchmarkReplay& replay, const SimulatedReplay& simulated,
                                   const std::vector<ReplaySet>& sets, std::optional<double> tolerance);
// "vllm-bench file F: N requests, K failed (counted, not replayed)".
std::string describe_benchmark(const BenchmarkReplay& replay);

// Whether the benchmark measured the scenario's deployment (sim/study/benchmark_match.h):
// prints each doubt as a warning and each mismatch as an error naming both values, or as a
// warning when `force`, on `err`, prefixed with `command` ("servesim replay"). Returns
// false when the command must stop with exit 2.
bool check_benchmark_deployment(const BenchmarkRun& bench, const Scenario& scenario, bool force,
                                const std::string& command, std::ostream& err);

// The benchmark formats `--format` takes, with the tool each reads.
void print_benchmark_formats(std::ostream& out);

}  // namespace servesim
