#pragma once
// The one saturation rule (docs/metrics.md, "Saturation"): a run, a sweep point, an
// `explain` variant and a `capacity` probe are all judged by judge_saturation.
//
// A run is saturated when either
//  - its backlog grew without bound (SaturationWatch: plain growth stops `capacity`'s
//    probes early, and a backlog that doubled in proportion to the arrivals says so at
//    the end), or
//  - over the second half of its arrivals it served less than (1 - tolerance) of the rate
//    offered (SustainedRateMeter), measured on a run long enough to tell that shortfall
//    from arrival noise, or short by so much more that the noise cannot explain it.
// A run that is neither, and too short to judge the shortfall, is `too_short`: its figures
// may describe a queue that never settled, and nothing here says whether they do. A run
// whose every class is a closed loop is neither: its users send only when a request of
// theirs completes, so what it offers is what it serves, at any length.
//
// A saturated run names two things: `by`, the scheduler's reason for leaving the queue's
// head waiting (kv_cache, max_num_seqs, token_budget, compute), and `resource`, what to buy
// to raise throughput, judged by the step mix the cost model priced (StepCost's compute_ns
// and memory_ns, summed over every step of every replica):
//  - "compute" when compute-bound operators took more of the step time: a larger batch
//    costs proportionally more, so only more FLOP/s serves more;
//  - otherwise the steps are memory-bound (each reads the weights whatever the batch), so a
//    larger batch is nearly free: "kv_memory" when the KV cache limited the batch,
//    "memory_bandwidth" when something else did;
//  - "unknown" when the cost model splits no time (constant step cost) and the KV cache
//    did not limit the batch.
#include <cstdint>
#include <string>

#include "sim/cluster/saturation_watch.h"
#include "sim/metrics/sustained_rate.h"

namespace servesim {

// The default share by which the served rate may fall short of the offered one.
inline constexpr double kSustainTolerance = 0.05;

struct SaturationVerdict {
  bool saturated = false;
  bool growing = false;    // the backlog test said so (SaturationWatch::saturated)
  bool too_short = false;  // not saturated, and too short to judge a shortfall of `tolerance`
  std::string by = "none";        // the scheduler's reason; "none" unless saturated
  std::string resource = "none";  // what raises throughput; "none" unless saturated
  SustainedRate sustained;
  std::string note;  // why saturated or too short; "" when the load was sustained
};

// Time of compute- and memory-bound operators over every step (ReplicaStats).
struct StepBoundTime {
  double compute_ns = 0;
  double memory_ns = 0;
};

SaturationVerdict judge_saturation(const SaturationWatch& watch, const SustainedRateMeter& meter, double tolerance,
                                   const StepBoundTime& bound, bool closed_loop = false);

// The resource rule above, on its own.
std::string saturated_resource(const std::string& by, const StepBoundTime& bound);

}  // namespace servesim
