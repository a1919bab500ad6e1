// queue_depth and in_flight: a Kubernetes HPA with an average target per replica on one
// metric summed over the pool, desired = ceil(current x (metric / current) / target) =
// ceil(metric / target) (hpa_desired). queue_depth reads vLLM's vllm:num_requests_waiting;
// in_flight the requests inside each replica, waiting or running (Knative's concurrency
// target). Nothing to count asks for 0, which the autoscaler lifts to min_replicas.
#include "sim/cluster/autoscale_policy.h"

namespace servesim {

namespace {

class HpaPolicy final : public AutoscalePolicy {
 public:
  HpaPolicy(std::int64_t FleetObservation::*metric, double target) : metric_(metric), target_(target) {}
  int desired(const FleetObservation& fleet) override { return hpa_desired(fleet.*metric_, target_); }

 private:
  std::int64_t FleetObservation::*metric_;  // the requests counted
  double target_;                           // > 0 (the loader checks)
};

}  // namespace

std::unique_ptr<AutoscalePolicy> make_queue_depth_policy(const AutoscaleSpec& spec) {
  return std::make_unique<HpaPolicy>(&FleetObservation::waiting, spec.target);
}

std::unique_ptr<AutoscalePolicy> make_in_flight_policy(const AutoscaleSpec& spec) {
  return std::make_unique<HpaPolicy>(&FleetObservation::in_flight, spec.target);
}

}  // namespace servesim
