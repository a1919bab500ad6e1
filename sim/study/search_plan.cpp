#include "sim/study/search_plan.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "sim/core/assert.h"

namespace servesim {

namespace {

// a <= b in every pool (same family, so the same number of pools).
bool all_at_most(const std::vector<long long>& a, const std::vector<long long>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] > b[i]) return false;
  return true;
}

long long total(const std::vector<long long>& r) { return std::accumulate(r.begin(), r.end(), 0LL); }

}  // namespace

const char* candidate_status_name(CandidateStatus s) {
  switch (s) {
    case CandidateStatus::pending: return "pending";
    case CandidateStatus::feasible: return "feasible";
    case CandidateStatus::infeasible: return "infeasible";
    case CandidateStatus::dominated: return "dominated";
  }
  return "?";
}

SearchPlan::SearchPlan(std::vector<PlanEntry> entries, bool prune) : entries_(std::move(entries)), prune_(prune) {}

std::vector<std::size_t> SearchPlan::next_round() {
  std::vector<std::size_t> round;
  if (!prune_) {
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].status == CandidateStatus::pending) round.push_back(i);
    return round;
  }
  // Families in order of their first candidate, each with its pending members.
  std::map<std::string, std::vector<std::size_t>> pending;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].status != CandidateStatus::pending) continue;
    auto& members = pending[entries_[i].family];
    if (members.empty()) order.push_back(entries_[i].family);
    members.push_back(i);
  }
  for (const auto& family : order) {
    auto members = pending[family];
    // The median by total replicas (ties by index): a run there settles about half the rest.
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return total(entries_[a].replicas) < total(entries_[b].replicas);
    });
    round.push_back(members[(members.size() - 1) / 2]);
  }
  std::sort(round.begin(), round.end());
  return round;
}

void SearchPlan::record(std::size_t index, bool feasible, bool load_failure, const std::string& reason,
                        const std::string& label) {
  SS_ASSERT(index < entries_.size() && entries_[index].status == CandidateStatus::pending, "settled twice");
  PlanEntry& e = entries_[index];
  e.ran = true;
  e.status = feasible ? CandidateStatus::feasible : CandidateStatus::infeasible;
  e.reason = reason;
  if (!prune_ || (!feasible && !load_failure)) return;
  for (std::size_t j = 0; j < entries_.size(); ++j) {
    PlanEntry& other = entries_[j];
    if (j == index || other.status != CandidateStatus::pending || other.family != e.family) continue;
    if (other.replicas == e.replicas) continue;  // a repeated value: run it, nothing to infer
    if (!feasible && all_at_most(other.replicas, e.replicas)) {
      other.status = CandidateStatus::infeasible;
      other.pruned = true;
      other.reason = "not run: no more replicas than " + label + ", which fails (" + reason + ")";
    } else if (feasible && all_at_most(e.replicas, other.replicas)) {
      other.status = CandidateStatus::dominated;
      other.pruned = true;
      other.reason = "not run: more replicas than " + label + ", which meets the SLOs for less";
    }
  }
}

void SearchPlan::settle_infeasible(std::size_t index, const std::string& reason) {
  SS_ASSERT(index < entries_.size() && entries_[index].status == CandidateStatus::pending, "settled twice");
  entries_[index].status = CandidateStatus::infeasible;
  entries_[index].reason = reason;
}

std::size_t SearchPlan::runs() const {
  return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const PlanEntry& e) { return e.ran; }));
}

std::size_t SearchPlan::pruned() const {
  return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const PlanEntry& e) {
    return e.pruned;
  }));
}

}  // namespace servesim
