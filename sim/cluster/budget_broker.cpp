#include "sim/cluster/budget_broker.h"

#include <algorithm>
#include <numeric>

#include "sim/cluster/autoscaler.h"
#include "sim/core/assert.h"

namespace servesim {

BudgetBroker::BudgetBroker(Simulator& sim, GpuBudget& budget, std::unique_ptr<BudgetPolicy> policy)
    : sim_(sim), budget_(budget), policy_(std::move(policy)) {
  SS_ASSERT(policy_->reclaims(), "a budget broker for a policy that reclaims");
}

void BudgetBroker::add(Autoscaler& pool, int priority) {
  Member m;
  m.pool = &pool;
  m.priority = priority;
  members_.push_back(m);
  pool.join_broker(*this, members_.size() - 1);
}

int BudgetBroker::gpus_of(std::size_t m) const { return members_[m].pool->gpus_per_replica(); }

double BudgetBroker::rank_of(std::size_t m) {
  BudgetPoolView view;
  view.priority = members_[m].priority;
  view.ttft_over_target = members_[m].pool->ttft_over_target();
  view.in_flight = members_[m].pool->in_flight();
  return policy_->rank(view);
}

void BudgetBroker::asked(std::size_t m, int replicas) {
  Member& asking = members_[m];
  asking.waiting = replicas;
  if (replicas == 0) return;
  int need = replicas * gpus_of(m) - (budget_.total() - budget_.held()) - asking.pending_gpus;
  if (need <= 0) return;
  std::vector<double> rank(members_.size());
  for (std::size_t v = 0; v < members_.size(); ++v) rank[v] = rank_of(v);
  while (need > 0) {
    // The lowest-ranked member below the asking one with a replica above min_replicas;
    // ties: the one declared last.
    std::size_t victim = members_.size();
    for (std::size_t v = members_.size(); v-- > 0;) {
      if (v == m || !(rank[v] < rank[m]) || !members_[v].pool->reclaim_candidate()) continue;
      if (victim == members_.size() || rank[v] < rank[victim]) victim = v;
    }
    if (victim == members_.size()) break;
    const std::size_t replica = *members_[victim].pool->reclaim_candidate();
    const int gpus = gpus_of(victim);
    reclaims_.push_back(Reclaim{victim, replica, m, gpus});
    asking.pending_gpus += gpus;
    ++asking.reclaims_asked;
    ++members_[victim].reclaims;
    need -= gpus;
    members_[victim].pool->reclaim(replica);  // may turn it off at once (turned_off)
  }
}

bool BudgetBroker::may_start(std::size_t m) {
  int reserved = 0;  // GPUs higher-ranked members wait for
  const bool anyone_waits =
      std::any_of(members_.begin(), members_.end(), [](const Member& w) { return w.waiting > 0; });
  if (anyone_waits) {
    const double own = rank_of(m);
    for (std::size_t w = 0; w < members_.size(); ++w)
      if (w != m && members_[w].waiting > 0 && rank_of(w) > own) reserved += members_[w].waiting * gpus_of(w);
  }
  return budget_.total() - budget_.held() - reserved >= gpus_of(m);
}

void BudgetBroker::turned_off(std::size_t m, std::size_t replica) {
  const auto it = std::find_if(reclaims_.begin(), reclaims_.end(),
                               [&](const Reclaim& r) { return r.victim == m && r.replica == replica; });
  if (it != reclaims_.end()) {
    members_[it->for_member].pending_gpus -= it->gpus;
    reclaims_.erase(it);
  }
  // The pool that turned the replica off may be in the middle of its own evaluation: the
  // waiting pools take the GPUs once it has finished, at the same instant.
  const bool someone_waits = std::any_of(members_.begin(), members_.end(), [](const Member& w) { return w.waiting > 0; });
  if (someone_waits && !sim_.pending(offer_)) offer_ = sim_.schedule_in(0, [this] { offer(); });
}

// Waiting members in rank order (ties: declaration order) start what fits; the first that
// cannot start all it waits for stops the round, so a lower-ranked member never takes GPUs
// a higher-ranked one waits for.
void BudgetBroker::offer() {
  std::vector<double> rank(members_.size());
  for (std::size_t v = 0; v < members_.size(); ++v) rank[v] = rank_of(v);
  std::vector<std::size_t> order(members_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&rank](std::size_t a, std::size_t b) { return rank[a] > rank[b]; });
  for (const std::size_t m : order) {
    Member& w = members_[m];
    if (w.waiting == 0) continue;
    w.waiting = w.pool->start_waiting(w.waiting);
    if (w.waiting > 0) break;
  }
}

}  // namespace servesim
