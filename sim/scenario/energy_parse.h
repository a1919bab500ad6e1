#pragma once
// Reads `cluster.energy` and checks a pool's `engine.power_cap_w` against its hardware
// (docs/energy.md).
#include "sim/cluster/cluster_config.h"
#include "sim/scenario/yaml_helpers.h"

namespace servesim {

// `cluster.energy`: every pool's hardware needs its power figures (tdp_w, idle_power_w,
// memory_power_fraction); the error names the pool. `cluster`'s pools are already read.
EnergySpec parse_energy(const Field& f, const ClusterConfig& cluster);

// A pool's engine.power_cap_w needs the hardware's power figures and must lie above its
// idle power (a GPU cannot draw less than that) and at most its TDP. `engine` is the pool's
// `engine:` field. Nothing to check without a cap.
void check_power_cap(const Field& engine, const PoolConfig& pool);

}  // namespace servesim
