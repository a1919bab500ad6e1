// slo_headroom: pools rank by how far their latency is over target now: TTFT p90 over the
// pool's trailing window / its autoscale.ttft_target, the measure of the slo_headroom
// autoscaling policy (autoscale_slo_headroom.cpp; every autoscaled pool uses it under this
// budget policy, the loader checks). The pool furthest over its target takes GPUs back
// from the one with the most headroom. A pool with no request finished in its window has
// nothing to show: idle, it ranks lowest (0); with requests inside it ranks highest (a
// queue that finishes nothing is no sign of headroom, as the autoscaling policy holds).
// Ranks move with the load, so a pool drained now may outrank the other later and take
// its GPUs back; each reclaim costs a cold start, which the pools' own windows damp.
#include <limits>

#include "sim/cluster/budget_policy.h"

namespace servesim {

namespace {

class SloHeadroomBudgetPolicy final : public BudgetPolicy {
 public:
  bool reclaims() const override { return true; }
  double rank(const BudgetPoolView& pool) const override {
    if (pool.ttft_over_target) return *pool.ttft_over_target;
    return pool.in_flight > 0 ? std::numeric_limits<double>::max() : 0.0;
  }
};

}  // namespace

std::unique_ptr<BudgetPolicy> make_slo_headroom_budget_policy() { return std::make_unique<SloHeadroomBudgetPolicy>(); }

}  // namespace servesim
