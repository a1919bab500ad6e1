#pragma once
// A named group of identical replicas behind one router.
#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/cluster/router.h"
#include "sim/engine/replica.h"
#include "sim/hardware/memory_plan.h"

namespace servesim {

class Pool {
 public:
  // Throws ConfigError when the model does not fit or a name is unknown.
  Pool(Simulator& sim, int pool_index, const PoolConfig& config, const std::string& router_name,
       std::uint64_t seed, MetricsRecorder& metrics, ReplicaListener& listener);

  // Routes and submits a request to one replica.
  void submit(RequestState& request);

  const PoolConfig& config() const { return config_; }
  const MemoryPlan& memory_plan() const { return memory_plan_; }
  std::int64_t kv_blocks_per_replica() const { return kv_blocks_; }
  std::vector<std::unique_ptr<Replica>>& replicas() { return replicas_; }
  const std::vector<std::unique_ptr<Replica>>& replicas() const { return replicas_; }

 private:
  PoolConfig config_;
  int index_;
  MemoryPlan memory_plan_;
  std::int64_t kv_blocks_ = 0;
  std::shared_ptr<const CostModel> cost_model_;
  std::unique_ptr<Router> router_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<ReplicaSnapshot> snapshots_;  // reused on every route
};

}  // namespace servesim
