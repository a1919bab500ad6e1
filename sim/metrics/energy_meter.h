#pragma once
// Meters the electrical energy of a run's GPUs (docs/energy.md): watches every step as it
// starts (a step observer) and every change of an autoscaled replica's phase, and writes
// summary.json's `energy` objects at the end. Every GPU on is at least at idle power; a
// step adds (P_step - P_idle) over its kernel time (sim/hardware/power_model.h); a replica
// loading its weights adds what streaming them in over the host link draws. A step's whole
// energy (its kernel time at P_step, the rest at idle) goes to the classes of its tokens:
// prompt tokens' share to the class's input energy, decode tokens' to its output energy.
#include <cstdint>
#include <queue>
#include <vector>

#include "sim/core/time.h"
#include "sim/engine/scheduler.h"
#include "sim/hardware/power_model.h"
#include "sim/metrics/summary.h"

namespace servesim {

struct EnergyPool {
  PowerModel power;
  int gpus_per_replica = 1;
  int replicas = 1;
  int initially_on = 1;         // replicas drawing power at t = 0 (an autoscaled pool's warm ones)
  double start_extra_w = 0;     // per GPU above idle while a replica loads its weights
};

class EnergyMeter {
 public:
  EnergyMeter(std::vector<EnergyPool> pools, int classes);

  // A step of `replica` of `pool` starts at `start_ns` with this plan and cost.
  void on_step(int pool, int replica, Tick start_ns, const StepPlan& plan, const StepCost& cost);
  // Whether `replica` of `pool` draws power (on) and whether it is loading its weights
  // (starting), from `now_ns` on. Replicas start as EnergyPool::initially_on says.
  void on_phase(int pool, int replica, Tick now_ns, bool on, bool starting);

  // Writes the `energy` objects: each pool's and the overall block's (paid_gpu_s: the GPU
  // seconds each pool was on, as its gpu_hours count them), each class's. Steps running
  // past end_ns count up to it. `price_per_kwh` > 0 adds energy_cost_usd.
  void write(RunSummary& summary, const std::vector<double>& paid_gpu_s, Tick end_ns, double price_per_kwh);

  // Totals so far, per pool (for tests): energy of the steps above idle, and of replicas starting.
  double step_energy_above_idle_j(int pool) const { return pools_[static_cast<std::size_t>(pool)].above_idle_j; }
  double peak_power_w(int pool) const { return pools_[static_cast<std::size_t>(pool)].peak_w; }

 private:
  struct PoolState {
    EnergyPool spec;
    double above_idle_j = 0;   // steps' kernel time above idle, all GPUs
    double starting_j = 0;     // weight loading above idle, all GPUs
    double power_w = 0;        // the pool's power now (all its GPUs)
    double peak_w = 0;
    std::vector<Tick> starting_since_ns;  // per replica; -1: not starting
    std::vector<bool> on;
    // Per replica, its last step's kernel end and power above idle (all its GPUs): a run
    // stopped by time counts that step only up to the end.
    std::vector<Tick> last_kernel_end_ns;
    std::vector<double> last_above_w;
  };
  struct Drop {  // a step's power above idle ends at `when_ns`
    Tick when_ns;
    int pool;
    double watts;
    bool operator>(const Drop& o) const { return when_ns > o.when_ns; }
  };
  struct ClassEnergy {
    double input_j = 0, output_j = 0;
  };
  void settle(Tick now_ns);  // applies the drops due by now
  void note_peaks();

  std::vector<PoolState> pools_;
  std::vector<ClassEnergy> classes_;
  std::priority_queue<Drop, std::vector<Drop>, std::greater<Drop>> drops_;
  double fleet_power_w_ = 0;
  double fleet_peak_w_ = 0;
};

}  // namespace servesim
