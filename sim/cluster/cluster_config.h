#pragma once
// Pools of replicas and how requests reach them (the scenario's `cluster:` block), with
// model and hardware already resolved from their YAML files by io.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/engine_config.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct PoolConfig {
  std::string name = "main";
  int replicas = 1;
  ModelSpec model;
  HardwareSpec hardware;
  Deployment deployment;
  EngineConfig engine;
  CostModelSpec cost_model;
  std::vector<std::string> classes;  // workload classes routed here; empty = every class
};

// When a run ends (the scenario's `stop:`), whichever comes first.
struct StopSpec {
  std::optional<std::int64_t> requests;  // admit this many arrivals in all, then drain them
  std::optional<Tick> time_ns;           // hard end of simulated time; the rest is unfinished
};

struct ClusterConfig {
  std::vector<PoolConfig> pools;
  std::string router = "least-outstanding";
};

}  // namespace servesim
