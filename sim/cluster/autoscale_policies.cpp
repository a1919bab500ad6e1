// The built-in autoscaling policies (docs/cluster.md, "Autoscaling").
#include "sim/cluster/autoscale_policy.h"

namespace servesim {

Registry<AutoscalePolicyFactory> make_autoscale_policy_registry() {
  Registry<AutoscalePolicyFactory> reg("autoscale policy");
  reg.add("queue_depth", "ceil(waiting requests / target per replica), like an HPA on vllm:num_requests_waiting",
          make_queue_depth_policy);
  reg.add("in_flight", "ceil(waiting + running requests / target per replica), like an HPA on concurrency",
          make_in_flight_policy);
  reg.add("slo_headroom", "TTFT p90 over a trailing window against a target: up when over, down when well under",
          make_slo_headroom_policy);
  reg.add("schedule", "replica counts at given times", make_schedule_policy);
  return reg;
}

std::vector<std::string> autoscale_policy_names() { return make_autoscale_policy_registry().entry_names(); }

}  // namespace servesim
