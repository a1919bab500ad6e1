#pragma once
// A pool's `autoscale:` block (docs/cluster.md, "Autoscaling"): the bounds of the fleet,
// the policy that asks for a replica count, and the timings of the replica life cycle.
// Durations are resolved by sim/scenario; the cold start may stay unset, and the pool then
// derives it from the weights and the host link (Autoscaler::default_cold_start_ns).
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

// From `at_ns` on, the schedule policy asks for `replicas`.
struct ScheduleStep {
  Tick at_ns = 0;
  int replicas = 1;
};

struct AutoscaleSpec {
  int min_replicas = 1;
  int max_replicas = 1;
  int initial_replicas = 1;  // warm at t = 0; the loader resolves the default (min, or the schedule's at 0)
  std::string policy = "in_flight";  // autoscale_policy.h registry
  // queue_depth / in_flight: requests per routable replica the policy aims at.
  double target = 0;
  // slo_headroom: TTFT p90 target, the trailing window it is measured over, and the
  // fraction of the target under which the fleet shrinks.
  Tick ttft_target_ns = 0;
  Tick window_ns = 0;
  double scale_down_below = 0.5;
  // schedule: strictly increasing times.
  std::vector<ScheduleStep> schedule;
  // A new replica serves this long after it starts (paid from the start); unset: weights
  // over the host link plus the engine start (docs/cluster.md).
  std::optional<Tick> cold_start_ns;
  // Stabilisation window before a scale-down: the fleet shrinks only to the largest count
  // asked for over this trailing window (Kubernetes HPA's scale-down stabilisation).
  Tick scale_down_delay_ns = 0;
  // Time between two evaluations of the policy.
  Tick interval_ns = 0;
};

}  // namespace servesim
