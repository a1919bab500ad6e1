#include "sim/cluster/kv_store_reach.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace servesim {

std::optional<StoreReach> reach_store(const Topology& topology, int first_gpu, int gpus, int store_node) {
  SS_ASSERT(gpus >= 1 && first_gpu >= 0 && first_gpu + gpus <= static_cast<int>(topology.gpus().size()),
            "a replica's GPUs outside the topology");
  StoreReach reach;
  bool first = true;
  for (int g = first_gpu; g < first_gpu + gpus; ++g) {
    const std::optional<NetworkPath> path = topology.path(topology.gpus()[static_cast<std::size_t>(g)], store_node);
    if (!path || path->edges.empty()) return std::nullopt;  // unreachable, or the store is the GPU itself
    reach.bytes_per_s = first ? path->bottleneck_bytes_per_s : std::min(reach.bytes_per_s, path->bottleneck_bytes_per_s);
    reach.latency_ns = std::max(reach.latency_ns, path->latency_ns);
    first = false;
  }
  return reach;
}

}  // namespace servesim
