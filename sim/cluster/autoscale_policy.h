#pragma once
// An autoscaling policy turns what a pool looks like now into the replica count it asks
// for. The autoscaler (autoscaler.h) clamps the answer to [min_replicas, max_replicas],
// applies the scale-down stabilisation window and starts or drains replicas. A new policy
// is one file plus one line in make_autoscale_policy_registry().
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/autoscale_spec.h"
#include "sim/core/registry.h"
#include "sim/core/time.h"

namespace servesim {

// The pool as the autoscaler sees it at an evaluation.
struct FleetObservation {
  Tick now_ns = 0;
  int active = 0;       // routable replicas
  int provisioned = 0;  // active + starting: what earlier evaluations asked for
  int starting = 0;     // in their cold start
  std::int64_t waiting = 0;    // requests queued on the pool's replicas, never yet scheduled or preempted
  std::int64_t in_flight = 0;  // waiting + running
  // TTFT p90 of the requests that finished within the trailing window (slo_headroom only);
  // none when none finished there.
  std::optional<Tick> ttft_p90_ns;
};

class AutoscalePolicy {
 public:
  virtual ~AutoscalePolicy() = default;
  // The replica count the policy asks for now (any integer; the autoscaler clamps it).
  virtual int desired(const FleetObservation& fleet) = 0;
  // The next instant after `now_ns` at which the answer changes by itself (a schedule's
  // next step), so the autoscaler evaluates exactly then; none: at the interval only.
  virtual std::optional<Tick> next_change_after(Tick now_ns) const {
    (void)now_ns;
    return std::nullopt;
  }
  // Whether desired() reads ttft_p90_ns (the autoscaler then keeps the window's samples).
  virtual bool reads_ttft() const { return false; }
};

// A Kubernetes HPA's rule on a metric summed over the pool with an average target per
// replica: desired = ceil(current x (metric / current) / target) = ceil(metric / target),
// capped at 1e9 (the autoscaler clamps it further). REQUIRES: target > 0.
inline int hpa_desired(std::int64_t metric, double target) {
  return static_cast<int>(std::min(std::ceil(static_cast<double>(metric) / target), 1e9));
}

using AutoscalePolicyFactory = std::function<std::unique_ptr<AutoscalePolicy>(const AutoscaleSpec& spec)>;
Registry<AutoscalePolicyFactory> make_autoscale_policy_registry();
// The names of the built-in policies, for validation.
std::vector<std::string> autoscale_policy_names();

// The factories (autoscale_*.cpp; queue_depth and in_flight share autoscale_hpa.cpp).
std::unique_ptr<AutoscalePolicy> make_queue_depth_policy(const AutoscaleSpec& spec);
std::unique_ptr<AutoscalePolicy> make_in_flight_policy(const AutoscaleSpec& spec);
std::unique_ptr<AutoscalePolicy> make_slo_headroom_policy(const AutoscaleSpec& spec);
std::unique_ptr<AutoscalePolicy> make_schedule_policy(const AutoscaleSpec& spec);

}  // namespace servesim
