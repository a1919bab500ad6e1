#pragma once
// How many requests a scenario asks the simulator for and roughly how long that takes, so
// that `validate` and `run` warn before a run that cannot finish in any reasonable time
// (`rate: 1e12` over a minute, `stop.requests: 2e13`). The input is valid, so this is a
// warning on stderr, never a refusal.
#include <string>

namespace servesim {

struct Scenario;

// The simulator's speed for the estimate: docs/performance.md, "Targets": 1M requests on
// 16 replicas in 2.69 s (light load, plain Release build), ~370,000 requests per second of
// wall time; busy loads are faster, the kernels cost model ~20% slower, 1,024 replicas up
// to 2.9x slower: a rough figure, good for telling minutes from years.
inline constexpr double kSimulatedRequestsPerWallSecond = 370'000;
// Runs estimated to take longer than this get the warning: a 10M-request run takes ~27 s,
// so only runs far beyond the documented ones reach it.
inline constexpr double kLongRunWallSeconds = 600;

struct RunSizeEstimate {
  double requests = 0;  // requests the run is expected to simulate
  double wall_s = 0;    // requests / kSimulatedRequestsPerWallSecond
  std::string bound;    // what sets the count: "stop.requests", "the arrival rates over stop.time 60 s"
};

// Open-loop classes give rate x time (each stage its rate x its length, up to stop.time),
// capped by stop.requests; a class without an end (no stages, no stop.time) is bounded by
// stop.requests alone. Traces end with their file and closed loops with the cluster's own
// pace, so they add nothing: the estimate is a lower bound for them.
RunSizeEstimate estimate_run_size(const Scenario& scenario);

// "warning: ..." with the expected request count and wall time when that exceeds
// kLongRunWallSeconds; empty otherwise.
std::string long_run_warning(const Scenario& scenario);

}  // namespace servesim
