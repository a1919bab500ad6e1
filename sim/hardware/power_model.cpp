#include "sim/hardware/power_model.h"

#include <algorithm>

#include "sim/hardware/roofline.h"  // gemm_math

namespace servesim {

PowerModel PowerModel::of(const HardwareSpec& hw, const Deployment& dep, double cap_w) {
  PowerModel m;
  m.idle_w = hw.idle_power_w;
  m.max_w = hw.tdp_w;
  m.memory_power_fraction = hw.memory_power_fraction;
  m.peak_flops = hw.peak_flops(gemm_math(dep));
  m.bandwidth_bytes_per_s = hw.memory_bandwidth_bytes_per_s;
  m.cap_w = cap_w;
  return m;
}

double PowerModel::kernel_s(const StepCost& cost) {
  const Tick parts = cost.compute_ns + cost.memory_ns + cost.comm_ns;
  return static_cast<double>(parts > 0 ? parts : cost.total_ns) * 1e-9;
}

double PowerModel::dynamic_j(double flops, double bytes) const {
  return (max_w - idle_w) * (flops / peak_flops + memory_power_fraction * bytes / bandwidth_bytes_per_s);
}

double PowerModel::step_power_w(const StepCost& cost) const {
  const double t = kernel_s(cost);
  const double above_idle = std::min(max_w - idle_w, dynamic_j(cost.flops, cost.bytes) / t);
  const double p = idle_w + above_idle;
  // A capped pool's cost model chose the clock that brings the step to the cap, so a step
  // whose work would draw more at its priced time drew the cap (docs/energy.md).
  return cap_w > 0 ? std::min(p, cap_w) : p;
}

double PowerModel::power_at_clock_w(const StepCost& cost, double s) const {
  const double compute_j = (max_w - idle_w) * cost.flops / peak_flops;
  const double memory_j = (max_w - idle_w) * memory_power_fraction * cost.bytes / bandwidth_bytes_per_s;
  const double t = (static_cast<double>(cost.compute_ns) / s + static_cast<double>(cost.memory_ns + cost.comm_ns)) * 1e-9;
  if (t <= 0) return idle_w;
  return idle_w + std::min(max_w - idle_w, (compute_j * s * s + memory_j) / t);
}

}  // namespace servesim
