#include "sim/hardware/simple_cost_models.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

ConstantCostModel::ConstantCostModel(Tick step_ns) : step_ns_(step_ns) {
  SS_ASSERT(step_ns >= 1, "a constant step must take at least 1 ns");
}

StepCost ConstantCostModel::step_cost(const BatchShape& batch) const {
  (void)batch;
  StepCost cost;
  cost.overhead_ns = step_ns_;
  cost.total_ns = step_ns_;
  return cost;
}

std::string ConstantCostModel::describe() const {
  return "constant(" + std::to_string(step_ns_) + " ns per step)";
}

LinearCostModel::LinearCostModel(Tick base_ns, double per_token_ns)
    : base_ns_(base_ns), per_token_ns_(per_token_ns) {
  SS_ASSERT(base_ns >= 0 && per_token_ns >= 0 && std::isfinite(per_token_ns),
            "linear cost model terms must be non-negative");
}

StepCost LinearCostModel::step_cost(const BatchShape& batch) const {
  StepCost cost;
  cost.overhead_ns = base_ns_;
  cost.compute_ns = static_cast<Tick>(
      std::llround(per_token_ns_ * static_cast<double>(batch.total_tokens())));
  cost.total_ns = std::max<Tick>(1, cost.overhead_ns + cost.compute_ns);
  return cost;
}

std::string LinearCostModel::describe() const {
  return "linear(" + std::to_string(base_ns_) + " ns + " + std::to_string(per_token_ns_) +
         " ns per token)";
}

}  // namespace servesim
