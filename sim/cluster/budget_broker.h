#pragma once
// Shares `cluster.gpus` among autoscaled pools under a policy that reclaims
// (budget_policy.h; first_come needs no broker, and runs without one). It hears from each
// pool's autoscaler how many starts did not fit at its evaluation, drains replicas of
// lower-ranked pools to make room, and when a replica turns off anywhere hands the freed
// GPUs to the waiting pools, highest rank first, at that instant rather than at their next
// evaluation. The budget's own check (gpu_budget.h) still guards every start.
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/cluster/budget_policy.h"
#include "sim/cluster/gpu_budget.h"
#include "sim/core/simulator.h"

namespace servesim {

class Autoscaler;

class BudgetBroker {
 public:
  // REQUIRES: policy->reclaims().
  BudgetBroker(Simulator& sim, GpuBudget& budget, std::unique_ptr<BudgetPolicy> policy);
  BudgetBroker(const BudgetBroker&) = delete;
  BudgetBroker& operator=(const BudgetBroker&) = delete;

  // Adds an autoscaled pool (already sharing `budget`) with its `priority`; members are
  // numbered in the order they join, which breaks ties of rank.
  void add(Autoscaler& pool, int priority);

  // Member `m`'s evaluation left `replicas` starts that did not fit (0: all fitted or none
  // asked). Drains replicas of lower-ranked members until the GPUs free, about to free
  // and being freed for it cover them, or no lower-ranked member is above min_replicas.
  void asked(std::size_t m, int replicas);
  // Whether member `m` may start a replica now: the budget fits it beyond the GPUs that
  // higher-ranked waiting members still wait for.
  bool may_start(std::size_t m);
  // Member `m`'s replica `replica` turned off (its GPUs are back in the budget).
  void turned_off(std::size_t m, std::size_t replica);

  // Replicas of member `m` drained or stopped for a higher-ranked member, and replicas of
  // lower-ranked members drained or stopped for `m`.
  std::int64_t reclaims(std::size_t m) const { return members_[m].reclaims; }
  std::int64_t reclaims_asked(std::size_t m) const { return members_[m].reclaims_asked; }

 private:
  struct Member {
    Autoscaler* pool = nullptr;
    int priority = 0;
    int waiting = 0;       // starts that did not fit at its last evaluation, not started since
    int pending_gpus = 0;  // GPUs of replicas draining for it
    std::int64_t reclaims = 0;
    std::int64_t reclaims_asked = 0;
  };
  struct Reclaim {
    std::size_t victim = 0;
    std::size_t replica = 0;
    std::size_t for_member = 0;
    int gpus = 0;
  };
  int gpus_of(std::size_t m) const;
  // The member's rank now (the policy's, from what the pool looks like at this instant).
  double rank_of(std::size_t m);
  void offer();

  Simulator& sim_;
  GpuBudget& budget_;
  std::unique_ptr<BudgetPolicy> policy_;
  std::vector<Member> members_;
  std::vector<Reclaim> reclaims_;  // replicas draining for another member, not yet off
  EventHandle offer_;
};

}  // namespace servesim
