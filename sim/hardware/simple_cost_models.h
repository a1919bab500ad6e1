#pragma once
// Cost models without operators, for tests and for what-if studies that fix the step time:
// `constant` (every step the same) and `linear` (base + per token computed).
#include <string>

#include "sim/hardware/cost_model.h"

namespace servesim {

// Every step takes `step_ns`, whatever the batch. Reported as overhead (no cause known).
class ConstantCostModel : public CostModel {
 public:
  // REQUIRES: step_ns >= 1.
  explicit ConstantCostModel(Tick step_ns);
  StepCost step_cost(const BatchShape& batch) const override;
  std::string describe() const override;

 private:
  Tick step_ns_;
};

// base_ns + per_token_ns x batch.total_tokens(), at least 1 ns. The base is reported as
// overhead and the per-token part as compute.
class LinearCostModel : public CostModel {
 public:
  // REQUIRES: base_ns >= 0, per_token_ns >= 0.
  LinearCostModel(Tick base_ns, double per_token_ns);
  StepCost step_cost(const BatchShape& batch) const override;
  std::string describe() const override;

 private:
  Tick base_ns_;
  double per_token_ns_;
};

}  // namespace servesim
