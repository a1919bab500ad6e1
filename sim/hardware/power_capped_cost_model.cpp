#include "sim/hardware/power_capped_cost_model.h"

#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

namespace {

// Bisection steps for the clock fraction: 2^-50 of the clock, far below a nanosecond of
// any step's compute time.
constexpr int kClockSearchSteps = 50;

}  // namespace

PowerCappedCostModel::PowerCappedCostModel(std::shared_ptr<const CostModel> inner, PowerModel power)
    : inner_(std::move(inner)), power_(power) {
  SS_ASSERT(power_.cap_w > power_.idle_w, "a power cap must lie above idle power (checked by the loader)");
}

StepCost PowerCappedCostModel::step_cost(const BatchShape& batch) const { return capped(inner_->step_cost(batch)); }

StepCost PowerCappedCostModel::capped(const StepCost& cost) const {
  if (power_.power_at_clock_w(cost, 1.0) <= power_.cap_w) return cost;
  StepCost out = cost;
  if (cost.compute_ns > 0) {
    // Power rises with the clock (more energy per operation in less time), and tends to
    // idle as the clock falls, so one clock fraction meets the cap: the highest that does.
    double lo = 0, hi = 1;
    for (int i = 0; i < kClockSearchSteps; ++i) {
      const double mid = 0.5 * (lo + hi);
      if (mid > 0 && power_.power_at_clock_w(cost, mid) <= power_.cap_w) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    SS_ASSERT(lo > 0, "a capped step found no clock");
    out.compute_ns = static_cast<Tick>(std::llround(static_cast<double>(cost.compute_ns) / lo));
  } else {
    // No compute-bound part: the SM clock cannot bring the step under the cap, so the
    // step's memory and communication stretch until its mean power is the cap (the same
    // energy over a longer time; docs/energy.md, "Power cap").
    const double above_idle_j = power_.dynamic_j(cost.flops, cost.bytes);
    const double t_s = above_idle_j / (power_.cap_w - power_.idle_w);
    const double before_s = static_cast<double>(cost.memory_ns + cost.comm_ns) * 1e-9;
    const double stretch = t_s / before_s;
    out.memory_ns = static_cast<Tick>(std::llround(static_cast<double>(cost.memory_ns) * stretch));
    out.comm_ns = static_cast<Tick>(std::llround(static_cast<double>(cost.comm_ns) * stretch));
  }
  out.total_ns = cost.total_ns + (out.compute_ns - cost.compute_ns) + (out.memory_ns - cost.memory_ns) +
                 (out.comm_ns - cost.comm_ns);
  return out;
}

std::shared_ptr<const CostModel> with_power_cap(std::shared_ptr<const CostModel> model, const HardwareSpec& hw,
                                                const Deployment& dep, double cap_w) {
  if (cap_w <= 0) return model;
  return std::make_shared<PowerCappedCostModel>(std::move(model), PowerModel::of(hw, dep, cap_w));
}

std::string PowerCappedCostModel::describe() const {
  return inner_->describe() + ", power cap " + std::to_string(static_cast<long long>(power_.cap_w)) + " W";
}

}  // namespace servesim
