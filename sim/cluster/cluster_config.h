#pragma once
// Pools of replicas and how requests reach them (the scenario's `cluster:` block), with
// model and hardware already resolved from their YAML files by sim/scenario.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/autoscale_spec.h"
#include "sim/cluster/topology_spec.h"
#include "sim/engine/engine_config.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/metrics/warmup.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

// What a pool does with a request (docs/cluster.md). `prefill` pools run the prompt, then
// hand the request's KV over the topology to a replica of their `decode_pool`; `decode`
// pools take only such hand-overs; `unified` pools do both (the default).
enum class PoolRole { unified, prefill, decode };

struct PoolConfig {
  std::string name = "main";
  int replicas = 1;
  ModelSpec model;
  HardwareSpec hardware;
  Deployment deployment;
  EngineConfig engine;
  CostModelSpec cost_model;
  std::vector<std::string> classes;  // workload classes routed here; empty = every class
  PoolRole role = PoolRole::unified;
  std::string decode_pool;  // role prefill: the decode pool its requests move to
  // Set: the pool autoscales between autoscale->min_replicas and max_replicas, and
  // `replicas` is max_replicas (docs/cluster.md, "Autoscaling"). Unified pools only.
  std::optional<AutoscaleSpec> autoscale;
  // `priority`: the pool's rank under cluster.budget_policy: priority (higher takes GPUs
  // back from lower); autoscaled pools only.
  int priority = 0;
};

// Per-class admission at the door of the class's pool (docs/cluster.md).
struct ClassAdmission {
  std::string class_name;
  // Most requests of the class that may wait in the pool never yet scheduled; an arrival
  // beyond it is rejected with reason `queue_full`.
  std::optional<std::int64_t> queue_limit;
  // Longest wait from arrival to the first step that computes any of the request's tokens;
  // a request still unscheduled then leaves with reason `timed_out`.
  std::optional<Tick> timeout_ns;
};

// When a run ends (the scenario's `stop:`), whichever comes first; and the warm-up its
// summaries leave out (the scenario's `warmup:`), which every command that runs the
// scenario honours because it travels with the stop.
struct StopSpec {
  std::optional<std::int64_t> requests;  // admit this many arrivals in all, then drain them
  std::optional<Tick> time_ns;           // hard end of simulated time; the rest is unfinished
  WarmupSpec warmup;                     // none by default
};

// `cluster.energy`: the run meters every GPU's power (docs/energy.md).
struct EnergySpec {
  double price_per_kwh = 0;  // USD; 0 = no energy cost in the summary
};

struct ClusterConfig {
  std::vector<PoolConfig> pools;
  // `cluster.gpus`: the GPUs all pools share (gpu_budget.h); unset: each pool is bounded
  // by its own replicas or max_replicas only.
  std::optional<int> gpus;
  // `cluster.budget_policy`: how autoscaled pools share `gpus` (budget_policy.h).
  std::string budget_policy = "first_come";
  std::optional<EnergySpec> energy;  // absent: no power figures, and nothing observes the steps for them
  std::string router = "least-outstanding";
  // Routers see replica load as it was at the last refresh, every this many ns (0: live).
  Tick router_staleness_ns = 0;
  std::vector<ClassAdmission> admission;
  // The network KV moves over between prefill and decode pools; unset: a DGX H100 preset
  // with as many nodes as the pools need.
  std::optional<TopologySpec> topology;
};

}  // namespace servesim
