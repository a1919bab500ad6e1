// Simulation: what the fleet cost in paid replica time (docs/metrics.md, "Fleet"). Written
// only when some pool autoscales, so every other run's summary stays as it was.
#include <algorithm>

#include "sim/cluster/simulation.h"

namespace servesim {

bool Simulation::work_remains() const {
  if (in_flight_ > 0) return true;
  return std::any_of(source_events_.begin(), source_events_.end(), [this](EventHandle h) { return sim_.pending(h); });
}

// A fixed pool is paid for all its replicas from t = 0 to the end of the run; an autoscaled
// one for each replica from its start (cold start included) to its turn-off or the end.
void Simulation::note_fleet(RunResult& result) const {
  if (std::none_of(pools_.begin(), pools_.end(), [](const auto& p) { return p->autoscaler() != nullptr; })) return;
  constexpr double kNsPerHour = 3.6e12;
  double all_gpu_hours = 0, all_usd = 0;
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    const Pool& pool = *pools_[p];
    const PoolConfig& cfg = pool.config();
    const double replica_ns = pool.autoscaler()
                                  ? static_cast<double>(pool.autoscaler()->paid_ns(result.end_ns))
                                  : static_cast<double>(cfg.replicas) * static_cast<double>(result.end_ns);
    const double gpu_hours = replica_ns * cfg.deployment.gpus() / kNsPerHour;
    const double usd = gpu_hours * cfg.hardware.price_per_gpu_hour;
    SummaryBlock& b = result.summary.pools[p].second;
    b.set("gpu_hours", gpu_hours);
    b.set("fleet_cost_usd", usd);
    all_gpu_hours += gpu_hours;
    all_usd += usd;
  }
  result.summary.overall.set("gpu_hours", all_gpu_hours);
  result.summary.overall.set("fleet_cost_usd", all_usd);
}

}  // namespace servesim
