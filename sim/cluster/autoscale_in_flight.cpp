// in_flight: as a Kubernetes HPA (or Knative's concurrency target) on the requests inside
// each replica, waiting or running: desired = ceil(in_flight / target).
#include "sim/cluster/autoscale_policy.h"

namespace servesim {

namespace {

class InFlightPolicy final : public AutoscalePolicy {
 public:
  explicit InFlightPolicy(double target) : target_(target) {}
  int desired(const FleetObservation& fleet) override {
    return hpa_desired(fleet.in_flight, target_);
  }

 private:
  double target_;  // > 0 (the loader checks)
};

}  // namespace

std::unique_ptr<AutoscalePolicy> make_in_flight_policy(const AutoscaleSpec& spec) {
  return std::make_unique<InFlightPolicy>(spec.target);
}

}  // namespace servesim
