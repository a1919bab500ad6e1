// Simulation: what the fleet cost in paid replica time (docs/metrics.md, "Fleet"), in every
// run's summary, so a fixed fleet and an autoscaled one compare from their own files.
#include <algorithm>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"

namespace servesim {

bool Simulation::work_remains() const {
  if (in_flight_ > 0) return true;
  return std::any_of(source_timers_.begin(), source_timers_.end(),
                     [this](const SourceTimer& s) { return sim_.timer_armed(s.timer); });
}

void Simulation::share_gpu_budget(int total_gpus) {
  gpu_budget_ = std::make_unique<GpuBudget>(total_gpus);
  const auto policies = make_budget_policy_registry();
  const auto* entry = policies.find(cluster_.budget_policy);
  if (!entry)
    throw ConfigError("", 0, "cluster.budget_policy",
                      "unknown budget policy '" + cluster_.budget_policy + "'; valid: " + policies.names());
  std::unique_ptr<BudgetPolicy> policy = entry->factory();
  if (policy->reclaims()) budget_broker_ = std::make_unique<BudgetBroker>(sim_, *gpu_budget_, std::move(policy));
  for (auto& pool : pools_) {
    const int per_replica = pool->config().deployment.gpus();
    if (Autoscaler* a = pool->autoscaler()) {
      a->share_budget(*gpu_budget_, per_replica);
      if (budget_broker_) budget_broker_->add(*a, pool->config().priority);
    } else {
      gpu_budget_->take(pool->config().replicas * per_replica);  // the loader checked they fit
    }
  }
}

// A fixed pool is paid for all its replicas from t = 0 to the end of the run; an autoscaled
// one for each replica from its start (cold start included) to its turn-off or the end.
// The paid cost needs a price: a pool whose hardware has none gets GPU-hours but no
// fleet_cost_usd, and the overall block a cost only when every pool has one (a missing
// price must not read as free).
void Simulation::note_fleet(RunResult& result) const {
  constexpr double kNsPerHour = 3.6e12;
  double all_gpu_hours = 0, all_usd = 0;
  bool all_priced = true;
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    const Pool& pool = *pools_[p];
    const PoolConfig& cfg = pool.config();
    const double replica_ns = pool.autoscaler()
                                  ? static_cast<double>(pool.autoscaler()->paid_ns(result.end_ns))
                                  : static_cast<double>(cfg.replicas) * static_cast<double>(result.end_ns);
    const double gpu_hours = replica_ns * cfg.deployment.gpus() / kNsPerHour;
    SummaryBlock& b = result.summary.pools[p].second;
    b.set("gpu_hours", gpu_hours);
    all_gpu_hours += gpu_hours;
    if (gpu_budget_ && pool.autoscaler())
      b.set_count("gpu_budget_starts_deferred", pool.autoscaler()->starts_deferred());
    if (budget_broker_ && pool.autoscaler()) {
      const std::size_t m = pool.autoscaler()->budget_member();
      b.set_count("gpu_budget_reclaims", budget_broker_->reclaims(m));
      b.set_count("gpu_budget_reclaims_asked", budget_broker_->reclaims_asked(m));
    }
    if (cfg.hardware.price_per_gpu_hour > 0) {
      const double usd = gpu_hours * cfg.hardware.price_per_gpu_hour;
      b.set("fleet_cost_usd", usd);
      all_usd += usd;
    } else {
      all_priced = false;
    }
  }
  result.summary.overall.set("gpu_hours", all_gpu_hours);
  if (gpu_budget_) {
    result.summary.overall.set_count("gpu_budget", gpu_budget_->total());
    result.summary.overall.set_count("gpu_budget_peak_held", gpu_budget_->peak());
  }
  if (all_priced) result.summary.overall.set("fleet_cost_usd", all_usd);
}

}  // namespace servesim
