// first_come: the GPUs go to whichever pool asks while they are free, at its evaluation;
// a start that does not fit is asked for again at the pool's next evaluation, and no pool
// is shrunk to make room for another. The default: what a cluster without preemption does.
#include "sim/cluster/budget_policy.h"

namespace servesim {

namespace {

class FirstComeBudgetPolicy final : public BudgetPolicy {
 public:
  bool reclaims() const override { return false; }
  double rank(const BudgetPoolView& pool) const override {
    (void)pool;
    return 0;
  }
};

}  // namespace

std::unique_ptr<BudgetPolicy> make_first_come_budget_policy() { return std::make_unique<FirstComeBudgetPolicy>(); }

}  // namespace servesim
