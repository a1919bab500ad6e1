#pragma once
// What one run hands back: its summary, its counts, whether it kept up with its arrivals,
// and how the engine's fast paths ran. Plain values, so that the studies, the writers and
// the public header use a run's result without seeing the simulation that made it.
#include <cstdint>
#include <string>

#include "sim/core/time.h"
#include "sim/metrics/summary.h"
#include "sim/metrics/sustained_rate.h"

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
  // Arrivals outpaced the cluster (judge_saturation at kSustainTolerance: the backlog grew
  // without bound, or the rate served fell short of the rate offered), so the latencies
  // describe a queue that had not reached a steady state.
  bool saturated = false;
  // Not saturated, but too short to tell a shortfall of kSustainTolerance from noise.
  bool too_short_to_judge = false;
  // The limit that held the waiting queue's head while the backlog grew (kv_cache,
  // max_num_seqs, token_budget, compute), or "none" when not saturated.
  std::string saturated_by = "none";
  // What raises throughput: compute, kv_memory, memory_bandwidth, unknown; "none" when not
  // saturated (saturation_verdict.h).
  std::string saturated_resource = "none";
  // The pool that ran short, whose limit and resource the two above name (several pools:
  // a prefill/decode split; saturation_verdict.h, name_binding_pool); "none" when not
  // saturated.
  std::string saturated_pool = "none";
  SustainedRate sustained;  // offered and served over the second half of the arrivals
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
