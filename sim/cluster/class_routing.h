#pragma once
// Which pool takes a workload class's requests (docs/cluster.md, "Pools and class
// routing"): the Simulation routes by it and the scenario loader checks it, so a class no
// pool serves fails at load time.
#include <string>
#include <vector>

#include "sim/cluster/cluster_config.h"

namespace servesim {

// The index of the pool that serves class `class_name`, or -1 when none does. Decode pools
// take no class. A class that names a model (`model`, not empty) goes only to pools serving
// that model (ModelSpec::name); among the pools it may use, the first that lists the class
// in `classes:`, else the first without `classes:`.
int pool_for_class(const std::vector<PoolConfig>& pools, const std::string& class_name, const std::string& model);

}  // namespace servesim
