#pragma once
// How autoscaled pools share `cluster.gpus` (`cluster.budget_policy`, docs/cluster.md,
// "Several models"). Under every policy a start that does not fit the budget waits; a
// policy that reclaims also ranks the pools: a pool whose start does not fit takes GPUs
// back from a pool ranked strictly lower (one of its replicas above min_replicas drains,
// as a Kubernetes scheduler evicts lower-priority pods for a pending higher-priority one),
// and GPUs that turn free go to the highest-ranked pool still waiting. A new policy is one
// file plus one line in make_budget_policy_registry().
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/registry.h"

namespace servesim {

// A pool under the budget as a policy ranks it, at the moment it is ranked.
struct BudgetPoolView {
  int priority = 0;  // the pool's `priority` (0 when not given)
  // slo_headroom: TTFT p90 over the pool's trailing window / its autoscale.ttft_target
  // (autoscale_slo_headroom.cpp's measure); none when no request finished in the window.
  std::optional<double> ttft_over_target;
  std::int64_t in_flight = 0;  // requests inside the pool's paid replicas
};

class BudgetPolicy {
 public:
  virtual ~BudgetPolicy() = default;
  // false: starts that do not fit wait for the pool's next evaluation and no pool is ever
  // shrunk for another (first_come); rank() is then never asked.
  virtual bool reclaims() const = 0;
  // The pool's claim on the budget: higher takes GPUs back from lower, and is served first.
  virtual double rank(const BudgetPoolView& pool) const = 0;
};

using BudgetPolicyFactory = std::function<std::unique_ptr<BudgetPolicy>()>;
Registry<BudgetPolicyFactory> make_budget_policy_registry();
// The names of the built-in policies, for validation; the first is the default.
std::vector<std::string> budget_policy_names();

// The factories (budget_*.cpp).
std::unique_ptr<BudgetPolicy> make_first_come_budget_policy();
std::unique_ptr<BudgetPolicy> make_priority_budget_policy();
std::unique_ptr<BudgetPolicy> make_slo_headroom_budget_policy();

}  // namespace servesim
