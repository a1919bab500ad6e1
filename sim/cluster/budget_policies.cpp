// The built-in policies for sharing `cluster.gpus` (docs/cluster.md, "Several models").
#include "sim/cluster/budget_policy.h"

namespace servesim {

Registry<BudgetPolicyFactory> make_budget_policy_registry() {
  Registry<BudgetPolicyFactory> reg("budget policy");
  reg.add("first_come", "a start that does not fit waits for the pool's next evaluation; no pool shrinks for another",
          make_first_come_budget_policy);
  reg.add("priority", "a pool's start that does not fit drains a replica of a lower-priority pool and takes its GPUs",
          make_priority_budget_policy);
  reg.add("slo_headroom", "the pool furthest over its TTFT target takes GPUs back from the one furthest under",
          make_slo_headroom_budget_policy);
  return reg;
}

std::vector<std::string> budget_policy_names() { return make_budget_policy_registry().entry_names(); }

}  // namespace servesim
