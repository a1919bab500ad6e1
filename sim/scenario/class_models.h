#pragma once
// A workload class's `model:` names the model its requests need; the cluster must have a
// pool serving it (docs/cluster.md, "Several models").
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// Every class with `model:` has a pool serving that model that may take the class, and no
// pool lists the class in `classes:` while serving another model. Errors name the class's
// `model` key. `workload` is the scenario's workload list, item i parsed into classes[i].
void check_class_models(const Field& workload, const std::vector<ClassSpec>& classes, const ClusterConfig& cluster);

}  // namespace servesim
