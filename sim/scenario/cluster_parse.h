#pragma once
// Reads the scenario's `cluster:` block: pools of identical replicas (model, hardware,
// parallelism, formats, engine, cost model, the classes they serve) and the router.
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// `classes` are the workload's classes, to check each pool's `classes:` list against and to
// make sure every class reaches at least one pool.
ClusterConfig parse_cluster(const Field& cluster, const std::vector<ClassSpec>& classes);

// Parts of the `cluster:` block (cluster_parse_topology.cpp).
TopologySpec parse_topology(const Field& topology);
std::vector<ClassAdmission> parse_admission(const Field& admission, const std::vector<ClassSpec>& classes);

}  // namespace servesim
