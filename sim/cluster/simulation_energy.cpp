// Simulation: the energy of the run's GPUs (docs/energy.md), when the scenario asks for it
// with `cluster.energy`. The meter watches each replica's steps and each autoscaled
// replica's phase; a run without `cluster.energy` adds neither.
#include <algorithm>
#include <memory>

#include "sim/cluster/autoscaler.h"
#include "sim/cluster/simulation.h"
#include "sim/metrics/energy_meter.h"

namespace servesim {

namespace {

// What one GPU draws above idle while its replica loads its weights: the weights streamed
// into HBM at the host link's rate, the memory share of the power model at that fraction of
// the HBM bandwidth.
double start_extra_w(const PowerModel& m, const HardwareSpec& hw) {
  if (hw.host_link_bandwidth_bytes_per_s <= 0) return 0;
  const double fraction = std::min(1.0, hw.host_link_bandwidth_bytes_per_s / hw.memory_bandwidth_bytes_per_s);
  return (m.max_w - m.idle_w) * m.memory_power_fraction * fraction;
}

}  // namespace

void Simulation::meter_energy() {
  std::vector<EnergyPool> specs;
  for (const auto& pool : pools_) {
    const PoolConfig& cfg = pool->config();
    EnergyPool e;
    e.power = PowerModel::of(cfg.hardware, cfg.deployment, cfg.engine.power_cap_w);
    e.gpus_per_replica = cfg.deployment.gpus();
    e.replicas = static_cast<int>(pool->replicas().size());
    e.initially_on = cfg.autoscale ? cfg.autoscale->initial_replicas : e.replicas;
    e.start_extra_w = start_extra_w(e.power, cfg.hardware);
    specs.push_back(e);
  }
  energy_ = std::make_unique<EnergyMeter>(std::move(specs), static_cast<int>(workload_.size()));
  EnergyMeter* meter = energy_.get();
  for (int p = 0; p < static_cast<int>(pools_.size()); ++p) {
    Pool& pool = *pools_[static_cast<std::size_t>(p)];
    for (auto& replica : pool.replicas())
      replica->add_step_observer([meter, p](int i, Tick start_ns, const StepPlan& plan, const StepCost& cost) {
        meter->on_step(p, i, start_ns, plan, cost);
      });
    Autoscaler* a = pool.autoscaler();
    if (!a) continue;
    // The autoscaler says when some phase changed; the meter hears of each replica whose
    // power state did.
    auto last = std::make_shared<std::vector<ReplicaPhase>>();
    for (std::size_t r = 0; r < pool.replicas().size(); ++r) last->push_back(a->phase(r));
    a->add_change_observer([meter, p, a, last](Tick now_ns) {
      for (std::size_t r = 0; r < last->size(); ++r) {
        const ReplicaPhase now = a->phase(r);
        if (now == (*last)[r]) continue;
        (*last)[r] = now;
        meter->on_phase(p, static_cast<int>(r), now_ns, now != ReplicaPhase::off, now == ReplicaPhase::starting);
      }
    });
  }
}

void Simulation::note_energy(RunResult& result) const {
  if (!energy_) return;
  std::vector<double> paid_gpu_s;
  for (const auto& pool : pools_) {
    const PoolConfig& cfg = pool->config();
    // The replica time note_fleet counts as paid: every replica from t = 0 in a fixed
    // pool, each replica's on time in an autoscaled one.
    const double replica_ns = pool->autoscaler() ? static_cast<double>(pool->autoscaler()->paid_ns(result.end_ns))
                                                 : static_cast<double>(cfg.replicas) * static_cast<double>(result.end_ns);
    paid_gpu_s.push_back(replica_ns * 1e-9 * cfg.deployment.gpus());
  }
  energy_->write(result.summary, paid_gpu_s, result.end_ns, cluster_.energy->price_per_kwh);
}

}  // namespace servesim
