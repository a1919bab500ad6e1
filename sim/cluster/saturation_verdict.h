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
//
// With several pools (a prefill/decode split, pools per class) the run's totals would mix
// pools: a decode pool's memory-bound steps can outweigh the prefill pool's compute-bound
// ones while the prefill pool is the one that runs short. So `by` and `resource` are judged
// per pool, on the pool's own watch and step mix (name_binding_pool): a pool is short when
// its own backlog grew without bound; the run names the binding pool, the short pool whose
// requests inside grew most over the judged window (SaturationWatch::inside_growth), or,
// when no pool's backlog grew past the growth test (a run judged by its served rate), the
// pool whose requests inside grew most. With one pool that pool binds, and the figures are
// those of the run's totals.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/saturation_watch.h"
#include "sim/metrics/saturation.h"
#include "sim/metrics/sustained_rate.h"

namespace servesim {

// The run's judgement (Saturation: saturated, too_short, by, resource, pool, sustained) and
// the judge's working.
struct SaturationVerdict : Saturation {
  bool growing = false;  // the backlog test said so (SaturationWatch::saturated)
  std::string note;      // why saturated or too short; "" when the load was sustained
  struct Pool {
    std::string by = "none", resource = "none";  // "none" unless this pool ran short
  };
  std::vector<Pool> pools;  // one per pool, in the scenario's order; empty unless named
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

// One pool as name_binding_pool sees it: its name, its own watch (fed with its requests
// inside and its never-scheduled ones, and its steps' blocked heads) and its step mix.
struct PoolSaturationInput {
  std::string name;
  const SaturationWatch* watch = nullptr;
  StepBoundTime bound;
};

// Names the pool that ran short in a saturated verdict and gives each pool that ran short
// its own by and resource (the rule above); the verdict's by and resource become the
// binding pool's. Leaves an unsaturated verdict as it is.
void name_binding_pool(SaturationVerdict& verdict, const std::vector<PoolSaturationInput>& pools);

}  // namespace servesim
