// slo_headroom: scales on the latency users see rather than on a load proxy, as the
// SLO-driven autoscalers of llm-d and the vLLM production stack do. With p = TTFT p90 of
// the requests that finished within the trailing window and T the target:
//   p > T                          -> ceil(provisioned x p / T), at least provisioned + 1
//                                     (proportional, as an HPA scales on a ratio)
//   p < scale_down_below x T       -> provisioned - 1 (one at a time: shrinking is cheap to
//                                     undo only after a cold start)
//   otherwise                      -> provisioned (the headroom band)
// While a replica is starting it asks for no more: its capacity has not shown in the
// latency yet, and asking again would overshoot. With no request finished in the window it
// holds while requests are inside (a queue that finishes nothing is no sign of headroom)
// and shrinks by one when the pool is empty.
#include <algorithm>
#include <cmath>

#include "sim/cluster/autoscale_policy.h"

namespace servesim {

namespace {

class SloHeadroomPolicy final : public AutoscalePolicy {
 public:
  SloHeadroomPolicy(Tick target_ns, double down_below) : target_ns_(target_ns), down_below_(down_below) {}
  bool reads_ttft() const override { return true; }
  int desired(const FleetObservation& fleet) override {
    const int n = fleet.provisioned;
    if (!fleet.ttft_p90_ns) return fleet.in_flight > 0 ? n : n - 1;
    const double p = static_cast<double>(*fleet.ttft_p90_ns);
    const double target = static_cast<double>(target_ns_);
    if (p > target) {
      if (fleet.starting > 0) return n;
      return static_cast<int>(std::max(std::min(std::ceil(n * p / target), 1e9), n + 1.0));
    }
    if (p < down_below_ * target) return n - 1;
    return n;
  }

 private:
  Tick target_ns_;     // > 0 (the loader checks)
  double down_below_;  // in (0, 1]
};

}  // namespace

std::unique_ptr<AutoscalePolicy> make_slo_headroom_policy(const AutoscaleSpec& spec) {
  return std::make_unique<SloHeadroomPolicy>(spec.ttft_target_ns, spec.scale_down_below);
}

}  // namespace servesim
