#pragma once
// A pool under engine.power_cap_w: the inner cost model's steps, slowed as the GPU's clock
// would slow them to keep its power at the cap (power_model.h, docs/energy.md). A step that
// draws no more than the cap at full clock is the inner model's step, bit for bit.
#include <memory>

#include "sim/hardware/cost_model.h"
#include "sim/hardware/power_model.h"

namespace servesim {

class PowerCappedCostModel : public CostModel {
 public:
  // REQUIRES: power.cap_w > power.idle_w.
  PowerCappedCostModel(std::shared_ptr<const CostModel> inner, PowerModel power);
  StepCost step_cost(const BatchShape& batch) const override;
  std::vector<OpTiming> breakdown(const BatchShape& batch) const override { return inner_->breakdown(batch); }
  std::string describe() const override;

  // `cost` at the clock that keeps it within the cap (public for tests and `servesim step`).
  StepCost capped(const StepCost& cost) const;

 private:
  std::shared_ptr<const CostModel> inner_;
  PowerModel power_;
};

// `model` under a cap of `cap_w` watts per GPU, or `model` itself when cap_w is 0.
// REQUIRES: cap_w == 0, or PowerModel::available(hw) and cap_w above its idle power.
std::shared_ptr<const CostModel> with_power_cap(std::shared_ptr<const CostModel> model, const HardwareSpec& hw,
                                                const Deployment& dep, double cap_w);

}  // namespace servesim
