#pragma once
// Which candidates of `servesim search` to run, in rounds, and which to settle without a
// run (docs/sweeps.md, "Pruning"). Candidates that differ only in their pools' replica
// counts form a family; within a family, a candidate with at most as many replicas in every
// pool as one that failed under load (saturated, SLO missed, requests rejected) fails too,
// and one with at least as many as a feasible candidate is dominated: it costs more and can
// only do as well. Each round runs at most one candidate per family - the median of its
// unsettled ones, so a chain of R replica counts needs about log2(R) runs - and every
// family in parallel. Rounds depend only on earlier results, so the outcome is the same
// for any number of threads.
#include <cstddef>
#include <string>
#include <vector>

namespace servesim {

enum class CandidateStatus { pending, feasible, infeasible, dominated };
const char* candidate_status_name(CandidateStatus s);  // "pending", "feasible", ...

struct PlanEntry {
  std::string family;               // equal for candidates that differ only in replicas
  std::vector<long long> replicas;  // per pool
  CandidateStatus status = CandidateStatus::pending;
  bool ran = false;
  bool pruned = false;  // settled by a neighbour's run
  std::string reason;  // why infeasible or dominated; for a pruned one, which run decided it
};

class SearchPlan {
 public:
  // `prune` false: every candidate runs, all in the first round.
  SearchPlan(std::vector<PlanEntry> entries, bool prune);

  // The candidates to run now, in increasing index; empty when every one is settled.
  std::vector<std::size_t> next_round();

  // Settles a candidate that ran. `load_failure`: it failed because of the load (saturated,
  // SLO missed, rejections), so fewer replicas fail too; false for a configuration that
  // cannot be built, which says nothing about its neighbours. `label` names the candidate in
  // the reasons given to the ones it prunes.
  void record(std::size_t index, bool feasible, bool load_failure, const std::string& reason,
              const std::string& label);

  // Settles a candidate without a run (it cannot be built): infeasible, prunes nothing.
  void settle_infeasible(std::size_t index, const std::string& reason);

  const std::vector<PlanEntry>& entries() const { return entries_; }
  std::size_t runs() const;
  std::size_t pruned() const;  // settled without a run by a neighbour's result

 private:
  std::vector<PlanEntry> entries_;
  bool prune_;
};

}  // namespace servesim
