#pragma once
// Reads a pool's `autoscale:` block (docs/cluster.md, "Autoscaling").
#include "sim/cluster/autoscale_spec.h"
#include "sim/cluster/cluster_config.h"
#include "sim/scenario/yaml_helpers.h"

namespace servesim {

// `pool` is the pool parsed so far (its role and whether it gave `replicas`), to refuse
// what autoscaling does not model. Every error names the file, line and key.
AutoscaleSpec parse_autoscale(const Field& autoscale, const Field& pool_field, const PoolConfig& pool);

}  // namespace servesim
