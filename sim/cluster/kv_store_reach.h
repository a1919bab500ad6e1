#pragma once
// How a replica reaches a shared KV store placed on a node of the cluster topology
// (engine.kv_offload.store_node; docs/prefix-caching.md, "KV tiers"). Each of the
// replica's GPUs moves its share of every token's KV over its own path to the store, all
// at once, so a transfer takes as long as the slowest GPU's: the least bottleneck
// bandwidth among their paths, and the greatest latency. The price is per replica and
// static: replicas loading at once do not slow each other on links they share (the store's
// own links are taken to carry them all, as Mooncake Store spreads a store over its
// nodes' NICs); a topology whose store link is the bottleneck prices each replica as if
// it had that link alone.
#include <optional>

#include "sim/cluster/topology.h"
#include "sim/core/time.h"

namespace servesim {

struct StoreReach {
  double bytes_per_s = 0;  // per GPU: the least bottleneck among the GPUs' paths
  Tick latency_ns = 0;     // the greatest path latency
};

// The reach to `store_node` of a replica placed on `gpus` consecutive GPUs of the topology
// from `first_gpu` (an index into topology.gpus(), as replicas are placed), or nullopt when
// one of them has no path there. REQUIRES: gpus >= 1, the GPUs exist.
std::optional<StoreReach> reach_store(const Topology& topology, int first_gpu, int gpus, int store_node);

}  // namespace servesim
