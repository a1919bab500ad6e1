#pragma once
// Turns each engine step of a Simulation into a StepSample (sim/metrics/timeseries.h) for
// the reports that follow a run over time: timeseries.csv, trace.json, the progress line;
// and, for timeseries.csv, every other change of a replica's queue and KV cache into
// ReplicaGauges. One call per step, queued request or withdrawal; nothing per token.
#include <functional>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/metrics/timeseries.h"

namespace servesim {

// What one step of `replica` (pool `pool`) looks like as it starts.
StepSample sample_step(const Replica& replica, int pool, int replica_index, Tick start_ns, const StepPlan& plan,
                       const StepCost& cost);

// Adds a step observer to every replica of `sim` that hands `fn` each step's sample; with
// `energy` (a run with cluster.energy) each sample carries the step's energy above idle.
// REQUIRES: run() has not been called yet; `fn` outlives the run.
void add_step_sampler(Simulation& sim, std::function<void(const StepSample&)> fn, bool energy = false);

// Hands `fn` every replica's queue and KV state whenever it changes other than at a step's
// start (Replica::add_state_observer), and once now, before the run, for each replica.
// With add_step_sampler's samples, `fn`'s receiver knows every replica's state at every
// moment. REQUIRES: run() has not been called yet; `fn` outlives the run.
using GaugeSampleFn = std::function<void(int pool, int replica, Tick now_ns, const ReplicaGauges&)>;
void add_gauge_sampler(Simulation& sim, GaugeSampleFn fn);

std::vector<int> replicas_per_pool(const Simulation& sim);

}  // namespace servesim
