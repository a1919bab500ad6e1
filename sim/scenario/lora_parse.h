#pragma once
// The two `lora:` blocks (docs/lora.md): a workload class's adapters and an engine's slots.
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/engine/lora_config.h"
#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/lora_demand_spec.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// workload.N.lora: {adapters, distribution: uniform | zipf, exponent, first_adapter}
LoraDemandSpec parse_lora_demand(const Field& f);
// engine.lora: {max_loras, max_cpu_loras, max_lora_rank, adapter_mb, disk_gb_s}
LoraConfig parse_lora_config(const Field& f);
// The engine block `f` of `pool` with lora on: a policy that admits through
// sched::admit_waiting (where max_loras is kept), a host link to load adapters over, and
// an adapter size (derived for dense models only).
void check_lora_for_pool(const Field& f, const PoolConfig& pool);
// A class whose requests name adapters needs a pool that serves them (vLLM refuses a LoRA
// request when LoRA is not enabled). `workload` is the scenario's workload list.
void check_lora_classes(const Field& workload, const std::vector<ClassSpec>& classes, const ClusterConfig& cluster);

}  // namespace servesim
