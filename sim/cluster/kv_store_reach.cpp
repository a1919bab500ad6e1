#include "sim/cluster/kv_store_reach.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace servesim {

std::optional<StoreReach> reach_store(const Topology& topology, std::span<const int> gpu_nodes, int store_node) {
  SS_ASSERT(!gpu_nodes.empty(), "a replica without GPUs");
  StoreReach reach;
  bool first = true;
  for (const int gpu : gpu_nodes) {
    const std::optional<NetworkPath> path = topology.path(gpu, store_node);
    if (!path || path->edges.empty()) return std::nullopt;  // unreachable, or the store is the GPU itself
    reach.bytes_per_s = first ? path->bottleneck_bytes_per_s : std::min(reach.bytes_per_s, path->bottleneck_bytes_per_s);
    reach.latency_ns = std::max(reach.latency_ns, path->latency_ns);
    first = false;
  }
  return reach;
}

}  // namespace servesim
