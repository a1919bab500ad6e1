#pragma once
// A named group of identical replicas behind one router. With router staleness the router
// sees load snapshots taken at the last refresh, refreshed every staleness interval by one
// event (none while the pool is idle, so an idle pool never keeps a run alive). An
// autoscaled pool holds max_replicas replicas and routes only to the active ones
// (autoscaler.h).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/autoscaler.h"
#include "sim/cluster/cluster_config.h"
#include "sim/cluster/router.h"
#include "sim/core/signal.h"
#include "sim/engine/replica.h"
#include "sim/engine/memory_plan.h"
#include "sim/metrics/replica_metrics.h"

namespace servesim {

class Pool {
 public:
  // Throws ConfigError when the model does not fit or a name is unknown.
  Pool(Simulator& sim, int pool_index, const PoolConfig& config, const std::string& router_name,
       std::uint64_t seed, MetricsRecorder& metrics, ReplicaListener& listener,
       Tick router_staleness_ns = 0);
  // The replicas point at the pool's change log.
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Routes and submits a request to one replica.
  void submit(RequestState& request);
  // The replica the router picks for `request` now (what submit() would use).
  int route(const RequestState& request);
  // Submits to a replica chosen earlier by route() (a disaggregated hand-over).
  void submit_to(RequestState& request, int replica);
  // The load the router sees now (live, or the last refresh's with staleness).
  const std::vector<ReplicaSnapshot>& router_view() const { return snapshots_; }

  const PoolConfig& config() const { return config_; }
  const MemoryPlan& memory_plan() const { return memory_plan_; }
  const CostModel& cost_model() const { return *cost_model_; }
  std::int64_t kv_blocks_per_replica() const { return kv_blocks_; }
  std::vector<std::unique_ptr<Replica>>& replicas() { return replicas_; }
  const std::vector<std::unique_ptr<Replica>>& replicas() const { return replicas_; }
  // The autoscaler of an autoscaled pool (config().autoscale), else null.
  Autoscaler* autoscaler() { return autoscaler_.get(); }
  const Autoscaler* autoscaler() const { return autoscaler_.get(); }
  // Called with every replica route() picks, before the request is submitted (the
  // invariant checker's view of routing).
  void add_route_observer(Signal<void(int replica)>::Slot fn) { routed_.connect(std::move(fn)); }

 private:
  PoolConfig config_;
  MemoryPlan memory_plan_;
  std::int64_t kv_blocks_ = 0;
  std::shared_ptr<const CostModel> cost_model_;
  std::unique_ptr<Router> router_;
  bool router_reads_kv_ = false;  // KV usage or cached prefixes
  bool router_indexes_ = false;   // told of every snapshot change (Router::wants_snapshot_changes)
  // What each replica measures goes to the run's metrics through its own subscription,
  // which outlives it.
  std::vector<std::unique_ptr<ReplicaMetrics>> replica_metrics_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  void take_snapshots();
  void snapshot(std::size_t replica);
  // Brings the snapshots of the replicas that marked a change up to date: the others
  // still describe their replica exactly.
  void refresh_changed_snapshots();
  // Applies the replicas' decode runs up to now where the router reads their KV caches.
  void catch_up_for_router();
  void on_refresh();
  void make_autoscaler(const std::string& key);
  // route() of an autoscaled pool: the router sees the active replicas only.
  int route_among_active(const RequestState& request);
  // The snapshot's lora_* fields for the request being routed (routers that want_lora).
  void fill_lora(ReplicaSnapshot& snapshot, std::size_t replica, const RequestState& request) const;

  Simulator& sim_;
  Tick staleness_ns_ = 0;
  EventHandle refresh_;
  std::vector<ReplicaSnapshot> snapshots_;  // reused on every route; the stale view with staleness
  LoadChangeLog load_log_{0};
  std::unique_ptr<Autoscaler> autoscaler_;
  std::vector<ReplicaSnapshot> routable_;  // autoscaled: the active replicas' snapshots, per route
  Signal<void(int replica)> routed_;
};

}  // namespace servesim
