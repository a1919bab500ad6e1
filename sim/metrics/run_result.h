#pragma once
// What one run hands back: its summary, its counts, whether it kept up with its arrivals,
// and how the engine's fast paths ran. Plain values, so that the studies, the writers and
// the public header use a run's result without seeing the simulation that made it.
#include <cstdint>
#include <string>

#include "sim/core/time.h"
#include "sim/metrics/saturation.h"
#include "sim/metrics/summary.h"

namespace servesim {

struct RunResult {
  RunSummary summary;
  std::int64_t arrived = 0;
  std::int64_t completed = 0;
  std::int64_t rejected = 0;
  std::int64_t unfinished = 0;
  std::int64_t steps = 0;
  std::int64_t preemptions = 0;
  std::uint64_t events = 0;
  Tick end_ns = 0;
  bool stopped_by_time = false;
  // Overload figures (docs/reliability.md). `backlog`: requests inside the cluster (waiting
  // or running) just after the last arrival.
  std::int64_t peak_in_flight = 0;
  std::int64_t backlog = 0;
  // Whether arrivals outpaced the cluster, judged at kSustainTolerance
  // (Simulation::note_saturation).
  Saturation saturation;
  // A stop check ended the run early (Simulation::set_stop_check).
  bool aborted = false;
};

// How the run's steps ran, over every replica (docs/performance.md): decode tokens advanced
// lazily, quiet stretches run as one event, and the steps priced for them.
struct EngineStats {
  std::int64_t lazy_decode_tokens = 0;
  std::int64_t decode_runs = 0;
  std::int64_t decode_run_steps = 0;
  std::int64_t decode_run_priced_steps = 0;
};

struct RunOutcome {
  RunResult result;
  EngineStats engine;
};

}  // namespace servesim
