#pragma once
// A GPU's electrical power during an engine step, from what the step does (docs/energy.md):
//
//   P = P_idle + (P_max - P_idle) * activity
//   activity = min(1, flops / (peak_flops * t) + memory_power_fraction * bytes / (bandwidth * t))
//
// over the step's kernel time t (its compute, memory and communication parts). A
// compute-bound prefill draws near P_max, a bandwidth-bound decode P_idle plus the memory
// share, a GPU between steps or loading its weights P_idle. Since activity is linear in the
// work, a step's energy above idle is (P_max - P_idle) times flops/peak_flops +
// memory_power_fraction * bytes/bandwidth, unless the step would draw more than P_max.
//
// A power cap lowers the SM clock (clock fraction s <= 1) until the step draws no more
// than the cap: the compute-bound part of the step takes compute/s, its memory-bound and
// communication parts keep their time (HBM and links have their own clocks), and the
// compute part's dynamic energy falls as s^2 (dynamic power C*V^2*f with voltage scaled
// with frequency). Pure functions, no state.
#include "sim/hardware/cost_model.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/model/deployment.h"

namespace servesim {

struct PowerModel {
  double idle_w = 0;                 // one GPU with nothing running (hardware idle_power_w)
  double max_w = 0;                  // one GPU at full activity (hardware tdp_w)
  double memory_power_fraction = 0;  // activity of a kernel streaming at full bandwidth
  double peak_flops = 0;             // FLOP/s of the pool's GEMM math format
  double bandwidth_bytes_per_s = 0;  // HBM peak
  double cap_w = 0;                  // engine.power_cap_w; 0 = no cap

  // Whether `hw` has the power figures a model needs (tdp_w and idle_power_w).
  static bool available(const HardwareSpec& hw) { return hw.tdp_w > 0; }
  // REQUIRES: available(hw).
  static PowerModel of(const HardwareSpec& hw, const Deployment& dep, double cap_w);

  // Seconds the step keeps the GPU's kernels busy: its compute, memory and communication
  // parts (a cost model without them, constant or linear: its whole time).
  static double kernel_s(const StepCost& cost);
  // Energy above idle of `flops` and `bytes` at full clock: what activity integrates to
  // before the P_max bound.
  double dynamic_j(double flops, double bytes) const;
  // One GPU's mean power over the step's kernel time, as the step was priced (a capped
  // pool's steps draw at most the cap: power_capped_cost_model.h).
  double step_power_w(const StepCost& cost) const;
  // The step's compute time and energy above idle at SM clock fraction `s` (0 < s <= 1).
  double power_at_clock_w(const StepCost& cost, double s) const;
};

}  // namespace servesim
