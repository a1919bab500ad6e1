// queue_depth: as a Kubernetes HPA on vLLM's vllm:num_requests_waiting with an average
// target per pod, desired = ceil(current x (waiting / current) / target) = ceil(waiting /
// target). Nothing waiting asks for 0, which the autoscaler lifts to min_replicas.
#include "sim/cluster/autoscale_policy.h"

namespace servesim {

namespace {

class QueueDepthPolicy final : public AutoscalePolicy {
 public:
  explicit QueueDepthPolicy(double target) : target_(target) {}
  int desired(const FleetObservation& fleet) override {
    return hpa_desired(fleet.waiting, target_);
  }

 private:
  double target_;  // > 0 (the loader checks)
};

}  // namespace

std::unique_ptr<AutoscalePolicy> make_queue_depth_policy(const AutoscaleSpec& spec) {
  return std::make_unique<QueueDepthPolicy>(spec.target);
}

}  // namespace servesim
