#pragma once
// Turns each engine step of a Simulation into a StepSample (sim/metrics/timeseries.h) for
// the reports that follow a run over time: timeseries.csv, trace.json, the progress line.
// One call per step, through the replicas' step observers; nothing per token.
#include <functional>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/metrics/timeseries.h"

namespace servesim {

// What one step of `replica` (pool `pool`) looks like as it starts.
StepSample sample_step(const Replica& replica, int pool, int replica_index, Tick start_ns, const StepPlan& plan,
                       const StepCost& cost);

// Adds a step observer to every replica of `sim` that hands `fn` each step's sample.
// REQUIRES: run() has not been called yet; `fn` outlives the run.
void add_step_sampler(Simulation& sim, std::function<void(const StepSample&)> fn);

// A replica's queue and KV state now.
ReplicaGauges replica_gauges(const Simulation& sim, int pool, int replica);

std::vector<int> replicas_per_pool(const Simulation& sim);

}  // namespace servesim
