// lora-affinity: send a request where its LoRA adapter is already in use, or where there is
// room to load it, without piling onto a queue (docs/lora.md, "Routing"). The filter chain
// of the Kubernetes Gateway API Inference Extension's endpoint picker for a critical
// request (kubernetes-sigs/gateway-api-inference-extension, pkg/ext-proc/scheduling:
// filter.go and scheduler.go, lowLatencyFilter), on what vLLM's gauges report
// (vllm:num_requests_waiting, vllm:kv_cache_usage_perc, and vllm:lora_requests_info's
// running_lora_adapters, waiting_lora_adapters and max_lora):
//
// 1. Replicas with fewer than 50 waiting requests (queueingThresholdLoRA, "arrived at
//    heuristically based on experiments" in scheduler.go). If there are any, among them:
//    a. those where a running or waiting request names the adapter (loRAAffinityPredicate);
//    b. if none, those that run fewer distinct adapters than max_loras, so the adapter can
//       join a batch without waiting (canAcceptNewLoraPredicate); if none, all of step 1's;
//    then the least-queue band, then the least-KV band (below).
// 2. If every replica has 50 or more waiting: the least-queue band of all replicas; of
//    those, the ones where the adapter is active or there is room (lowLoRACostPredicate),
//    if any; then the least-KV band.
// A band keeps the replicas whose figure is within (max - min) / n of the minimum over the
// n replicas it is given (leastQueuingFilterFunc, leastKVCacheFilterFunc: the queue's range
// divided as integers, as Go's int division does), and the request goes to one replica of
// the last set drawn uniformly at random (Schedule: rand.Intn), from the router's own
// random stream. A request of the base model (adapter 0) names no adapter: steps 1a, 1b and
// 2's LoRA filter keep every replica they are given.
#include <algorithm>
#include <limits>
#include <vector>

#include "sim/cluster/router.h"
#include "sim/core/rng.h"

namespace servesim {
namespace {

constexpr std::int64_t kQueueingThresholdLora = 50;  // scheduler.go, queueingThresholdLoRA

using Set = std::vector<const ReplicaSnapshot*>;

Set keep(const Set& in, bool (*pass)(const ReplicaSnapshot&)) {
  Set out;
  for (const ReplicaSnapshot* r : in)
    if (pass(*r)) out.push_back(r);
  return out;
}

Set least_queue_band(const Set& in) {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
  for (const ReplicaSnapshot* r : in) {
    lo = std::min(lo, r->waiting);
    hi = std::max(hi, r->waiting);
  }
  const std::int64_t width = (hi - lo) / static_cast<std::int64_t>(in.size());
  Set out;
  for (const ReplicaSnapshot* r : in)
    if (r->waiting <= lo + width) out.push_back(r);
  return out;
}

Set least_kv_band(const Set& in) {
  double lo = std::numeric_limits<double>::max(), hi = 0;
  for (const ReplicaSnapshot* r : in) {
    lo = std::min(lo, r->kv_usage);
    hi = std::max(hi, r->kv_usage);
  }
  const double width = (hi - lo) / static_cast<double>(in.size());
  Set out;
  for (const ReplicaSnapshot* r : in)
    if (r->kv_usage <= lo + width) out.push_back(r);
  return out;
}

bool has_room(const ReplicaSnapshot& r) { return r.lora_running_adapters < r.lora_max_loras; }
bool active(const ReplicaSnapshot& r) { return r.lora_adapter_active; }
bool active_or_room(const ReplicaSnapshot& r) { return active(r) || has_room(r); }
bool short_queue(const ReplicaSnapshot& r) { return r.waiting < kQueueingThresholdLora; }

// `filtered` when it is not empty, else `given` (a filter that leaves nobody passes its
// input on: filter.go's nextOnFailure).
const Set& or_else(const Set& filtered, const Set& given) { return filtered.empty() ? given : filtered; }

class LoraAffinityRouter final : public Router {
 public:
  explicit LoraAffinityRouter(Rng rng) : rng_(rng) {}
  bool wants_lora() const override { return true; }

  RouteDecision route(const RequestSpec& request, std::span<const ReplicaSnapshot> replicas) override {
    Set all;
    all.reserve(replicas.size());
    for (const ReplicaSnapshot& r : replicas) all.push_back(&r);
    const bool names_adapter = request.lora_adapter != 0;
    const char* reason = "";
    Set chosen;
    const Set low = keep(all, short_queue);
    if (!low.empty()) {
      Set lora = low;
      reason = "short queue";
      if (names_adapter) {
        Set with_adapter = keep(low, active);
        if (!with_adapter.empty()) {
          lora = std::move(with_adapter);
          reason = "adapter already in use, short queue";
        } else {
          const Set room = keep(low, has_room);
          lora = or_else(room, low);
          reason = room.empty() ? "short queue (no replica has the adapter or room for it)" : "room for the adapter, short queue";
        }
      }
      chosen = least_kv_band(least_queue_band(lora));
    } else {
      const Set queue = least_queue_band(all);
      const Set lora = names_adapter ? keep(queue, active_or_room) : queue;
      chosen = least_kv_band(or_else(lora, queue));
      reason = "every queue long: least queued";
    }
    const auto pick = rng_.uniform_int(0, static_cast<std::int64_t>(chosen.size()) - 1);
    return {static_cast<int>(chosen[static_cast<std::size_t>(pick)] - replicas.data()), reason};
  }

 private:
  Rng rng_;
};

}  // namespace

std::unique_ptr<Router> make_lora_affinity_router(Rng rng) { return std::make_unique<LoraAffinityRouter>(rng); }

}  // namespace servesim
