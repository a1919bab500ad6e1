#include "sim/study/cache_curve_study.h"

#include <memory>
#include <span>

#include "sim/cluster/router.h"
#include "sim/core/errors.h"
#include "sim/engine/prefix_cache_replay.h"

namespace servesim {
namespace {

// Adapts a cluster router to the replay: there are no queues without timing, so a
// replica's load is the number of requests routed to it so far.
class ReplayRouting {
 public:
  ReplayRouting(std::unique_ptr<Router> router, const PrefixUnitTrace& trace, int replicas)
      : router_(std::move(router)), trace_(trace), routed_(static_cast<std::size_t>(replicas), 0),
        snapshots_(static_cast<std::size_t>(replicas)) {}
  int operator()(std::size_t index, std::span<const std::int64_t> cached) {
    for (std::size_t i = 0; i < snapshots_.size(); ++i) {
      snapshots_[i] = ReplicaSnapshot{static_cast<int>(i), routed_[i], 0, routed_[i], 0.0};
      snapshots_[i].cached_prefix_tokens = cached[i];
    }
    RequestSpec spec;
    spec.id = index;
    spec.prompt_tokens = trace_.requests[index].prompt_tokens;
    const int target = router_->route(spec, snapshots_).target;
    ++routed_[static_cast<std::size_t>(target)];
    return target;
  }

 private:
  std::unique_ptr<Router> router_;
  const PrefixUnitTrace& trace_;
  std::vector<std::int64_t> routed_;
  std::vector<ReplicaSnapshot> snapshots_;
};

}  // namespace

CacheCurveStudy run_cache_curve(const CacheCurveRequest& request) {
  const auto routers = make_router_registry();
  const auto* router = routers.find(request.router);
  if (!router) throw ConfigError("", 0, "router", "unknown router '" + request.router + "'; valid: " + routers.names());
  const PrefixUnitTrace trace = read_prefix_units(request.trace_path, request.format, request.hash_block_tokens);
  CacheCurveStudy study;
  study.requests = trace.requests.size();
  study.prompt_tokens = trace.total_prompt_tokens;
  study.block_tokens = trace.block_tokens;
  for (const std::int64_t size : request.sizes) {
    if (request.replicas == 1) {
      study.points.push_back(replay_prefix_cache(trace, size, 1, {}, request.tiers));
    } else {
      // A fresh router per size: the same seed gives the same choices for each curve point.
      auto routing = std::make_shared<ReplayRouting>(router->factory(0, "cache-curve"), trace, request.replicas);
      study.points.push_back(replay_prefix_cache(
          trace, size, request.replicas,
          [routing](std::size_t i, std::span<const std::int64_t> c) { return (*routing)(i, c); }, request.tiers));
    }
  }
  return study;
}

}  // namespace servesim
