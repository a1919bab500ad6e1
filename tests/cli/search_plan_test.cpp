// The pruning order of `servesim search` (sim/study/search_plan.h) against oracles whose
// feasible sets are known, counting the runs it needs.
#include <catch2/catch.hpp>

#include <functional>

#include "sim/study/search_plan.h"

namespace search_plan_test {

using namespace servesim;

namespace {

PlanEntry entry(const std::string& family, std::vector<long long> replicas) {
  PlanEntry e;
  e.family = family;
  e.replicas = std::move(replicas);
  return e;
}

// Runs the plan to the end with `feasible` as the outcome of every run; returns the rounds.
int drive(SearchPlan& plan, const std::function<bool(const PlanEntry&)>& feasible) {
  int rounds = 0;
  for (auto round = plan.next_round(); !round.empty(); round = plan.next_round(), ++rounds)
    for (auto i : round) {
      const bool ok = feasible(plan.entries()[i]);
      plan.record(i, ok, !ok, ok ? "" : "saturated", "candidate " + std::to_string(i));
    }
  return rounds;
}

}  // namespace

TEST_CASE("search plan: a chain of 8 replica counts is settled by 3 runs when 3 replicas is the least that works", "[search]") {
  std::vector<PlanEntry> entries;
  for (long long r = 1; r <= 8; ++r) entries.push_back(entry("a", {r}));
  SearchPlan plan(entries, true);
  // Round 1 runs the median (4 replicas: feasible, so 5..8 are dominated); round 2 the
  // median of 1..3 (2: fails, so 1 fails too); round 3 runs 3.
  CHECK(plan.next_round() == std::vector<std::size_t>{3});
  CHECK(drive(plan, [](const PlanEntry& e) { return e.replicas[0] >= 3; }) == 3);
  CHECK(plan.runs() == 3);
  CHECK(plan.pruned() == 5);
  const auto& e = plan.entries();
  CHECK(e[0].status == CandidateStatus::infeasible);
  CHECK_FALSE(e[0].ran);
  CHECK(e[0].reason == "not run: no more replicas than candidate 1, which fails (saturated)");
  CHECK(e[1].status == CandidateStatus::infeasible);
  CHECK(e[1].ran);
  CHECK(e[2].status == CandidateStatus::feasible);
  CHECK(e[2].ran);
  for (int i = 4; i < 8; ++i) {
    CHECK(e[i].status == CandidateStatus::dominated);
    CHECK(e[i].reason == "not run: more replicas than candidate 3, which meets the SLOs for less");
  }
}

TEST_CASE("search plan: without pruning every candidate runs in the first round", "[search]") {
  std::vector<PlanEntry> entries;
  for (long long r = 1; r <= 8; ++r) entries.push_back(entry("a", {r}));
  SearchPlan plan(entries, false);
  CHECK(plan.next_round().size() == 8);
  CHECK(drive(plan, [](const PlanEntry& e) { return e.replicas[0] >= 3; }) == 1);
  CHECK(plan.runs() == 8);
  CHECK(plan.pruned() == 0);
  CHECK(plan.entries()[7].status == CandidateStatus::feasible);
}

TEST_CASE("search plan: families run side by side and a build failure prunes nothing", "[search]") {
  std::vector<PlanEntry> entries;
  for (long long r = 1; r <= 3; ++r) entries.push_back(entry("fits", {r}));
  for (long long r = 1; r <= 3; ++r) entries.push_back(entry("too-big", {r}));
  SearchPlan plan(entries, true);
  // One candidate per family per round: the medians, 2 replicas each.
  const auto first = plan.next_round();
  REQUIRE(first == std::vector<std::size_t>{1, 4});
  plan.record(1, true, false, "", "candidate 1");
  plan.record(4, false, false, "cannot be built: the model does not fit", "candidate 4");
  CHECK(plan.entries()[2].status == CandidateStatus::dominated);
  CHECK(plan.entries()[3].status == CandidateStatus::pending);  // not inferred from a build failure
  CHECK(plan.entries()[5].status == CandidateStatus::pending);
  CHECK(plan.next_round() == std::vector<std::size_t>{0, 3});
}

TEST_CASE("search plan: with two pools the replica order is the order in every pool", "[search]") {
  // (1,1) (1,2) (2,1) (2,2); feasible when the pools hold 3 or more replicas together.
  std::vector<PlanEntry> entries = {entry("p", {1, 1}), entry("p", {1, 2}), entry("p", {2, 1}), entry("p", {2, 2})};
  SearchPlan plan(entries, true);
  // By total replicas: 2, 3, 3, 4; the median is (1,2): feasible, so (2,2) is dominated but
  // (2,1) is not comparable and must run.
  CHECK(plan.next_round() == std::vector<std::size_t>{1});
  drive(plan, [](const PlanEntry& e) { return e.replicas[0] + e.replicas[1] >= 3; });
  const auto& e = plan.entries();
  CHECK(e[0].status == CandidateStatus::infeasible);
  CHECK(e[0].ran);
  CHECK(e[1].status == CandidateStatus::feasible);
  CHECK(e[2].status == CandidateStatus::feasible);
  CHECK(e[2].ran);
  CHECK(e[3].status == CandidateStatus::dominated);
  CHECK(plan.runs() == 3);
}

}  // namespace search_plan_test
