// priority: pools rank by their `priority` (higher first, as Kubernetes PriorityClass
// values and the workload classes' `priority`). A start that does not fit drains a
// replica of the lowest-priority pool above its min_replicas, and the freed GPUs go to
// the highest-priority waiting pool (Kubernetes' scheduler preempting lower-priority pods
// for a pending one). Pools of equal priority never drain one another.
#include "sim/cluster/budget_policy.h"

namespace servesim {

namespace {

class PriorityBudgetPolicy final : public BudgetPolicy {
 public:
  bool reclaims() const override { return true; }
  double rank(const BudgetPoolView& pool) const override { return pool.priority; }
};

}  // namespace

std::unique_ptr<BudgetPolicy> make_priority_budget_policy() { return std::make_unique<PriorityBudgetPolicy>(); }

}  // namespace servesim
