#pragma once
// A router picks the replica of a pool that serves a request, from snapshots of the
// replicas' load. Routers cannot change replicas. A new router is one file plus one line
// in make_router_registry().
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "sim/core/registry.h"
#include "sim/workload/request.h"

namespace servesim {

struct ReplicaSnapshot {
  int index = 0;
  std::int64_t outstanding = 0;  // waiting + running requests
  std::int64_t waiting = 0;
  std::int64_t running = 0;
  double kv_usage = 0;           // fraction of KV blocks in use
  // Prompt tokens of the request being routed that this replica's prefix cache holds now;
  // filled only for routers whose wants_cached_prefix() is true (0 otherwise).
  std::int64_t cached_prefix_tokens = 0;
  // For routers whose wants_lora() is true (else left as here), what vLLM's
  // vllm:lora_requests_info gauge says of the replica (Replica::lora_load): whether a
  // running or waiting request names the routed request's adapter, how many distinct
  // adapters its running requests name, and its max_loras (0: the engine serves no adapters).
  bool lora_adapter_active = false;
  int lora_running_adapters = 0;
  int lora_max_loras = 0;
};

struct RouteDecision {
  int target = 0;
  const char* reason = "";
};

class Router {
 public:
  virtual ~Router() = default;
  // REQUIRES: !replicas.empty(). Returns an index into `replicas`.
  virtual RouteDecision route(const RequestSpec& request, std::span<const ReplicaSnapshot> replicas) = 0;
  // Whether route() reads ReplicaSnapshot::cached_prefix_tokens (a prefix lookup per
  // replica per request, so only cache-aware routers ask for it).
  virtual bool wants_cached_prefix() const { return false; }
  // Whether route() reads the ReplicaSnapshot's lora_* fields (a scan of each replica's
  // requests per routed request, so only adapter-aware routers ask for it).
  virtual bool wants_lora() const { return false; }
  // Whether route() reads ReplicaSnapshot::kv_usage (the pool then brings every replica's
  // KV cache up to date before it snapshots them: Replica::catch_up).
  virtual bool reads_kv_usage() const { return false; }
  // Whether a pool of `replicas` should call snapshot_changed: a router that keeps its own
  // index over the snapshots (least-outstanding's ArgminTree, for many replicas), so as not
  // to scan them all per request. Asked once, when the pool is made.
  virtual bool wants_snapshot_changes(std::size_t replicas) const {
    (void)replicas;
    return false;
  }
  // The pool rewrote replicas[index]: called for every replica when the pool starts, then
  // for each snapshot it refreshes, before the next route() reads them. A router that was
  // never told scans what it is given.
  virtual void snapshot_changed(std::span<const ReplicaSnapshot> replicas, int index) {
    (void)replicas;
    (void)index;
  }
};

// The factory gets the run seed and the pool name, to derive its own random stream.
using RouterFactory = std::function<std::unique_ptr<Router>(std::uint64_t seed, const std::string& pool)>;
Registry<RouterFactory> make_router_registry();

}  // namespace servesim
