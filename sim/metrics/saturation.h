#pragma once
// Whether a run kept up with its arrivals, as judge_saturation rules it (the rule:
// sim/cluster/saturation_verdict.h, docs/metrics.md). SaturationVerdict is this and the
// judge's working (which test said so, why, each pool's own limit); a run's result keeps
// this part (RunResult::saturation), so the verdict reaches the result in one assignment
// and the fields have one meaning in both.
#include <string>

#include "sim/metrics/sustained_rate.h"

namespace servesim {

struct Saturation {
  // Arrivals outpaced the cluster (the backlog grew without bound, or the rate served fell
  // short of the rate offered), so the latencies describe a queue that had not reached a
  // steady state.
  bool saturated = false;
  // Not saturated, and too short to tell a shortfall of the judged tolerance from noise.
  bool too_short = false;
  // The limit that held the waiting queue's head while the backlog grew (kv_cache,
  // max_num_seqs, token_budget, compute); "none" unless saturated.
  std::string by = "none";
  // What raises throughput (compute, kv_memory, memory_bandwidth, unknown); "none" unless
  // saturated.
  std::string resource = "none";
  // The pool that ran short (name_binding_pool), whose limit and resource the two above
  // name: "none" unless saturated; "unknown" when several pools' requests inside none grew
  // (then by and resource are the run's totals').
  std::string pool = "none";
  SustainedRate sustained;  // offered and served over the second half of the arrivals
};

}  // namespace servesim
