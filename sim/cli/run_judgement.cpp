#include "sim/cli/run_judgement.h"

#include "sim/cluster/saturation_watch.h"

namespace servesim {

std::int64_t sequence_slots(const Scenario& s) {
  std::int64_t slots = 0;
  for (const auto& p : s.cluster.pools) slots += std::int64_t{p.replicas} * p.engine.max_num_seqs;
  return slots;
}

const SummaryBlock* summary_block_of(const RunSummary& summary, const std::string& class_name) {
  if (class_name.empty()) return &summary.overall;
  for (const auto& [name, block] : summary.classes)
    if (name == class_name) return &block;
  return nullptr;
}

RunJudgement run_and_judge(const Scenario& s, const std::vector<SloScope>& scopes, double reject_share,
                           bool early_stop, bool label_classes) {
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  // The run's own watch (Simulation::note_saturation): one rule for summary.json and here.
  const SaturationWatch& watch = sim.saturation_watch();
  sim.set_arrival_observer([&](std::int64_t, std::int64_t) { return early_stop && watch.tripped_early(); });
  RunJudgement j;
  j.result = sim.run();
  const RunResult& r = j.result;
  std::vector<std::string> why;
  if (r.saturated)
    why.push_back("saturated by " + r.saturated_by + ": " + std::to_string(watch.excess()) + " requests backlogged " +
                  (r.aborted ? "after " + std::to_string(r.arrived) + " arrivals, run stopped early"
                             : "at the last arrival, and growing"));
  if (r.completed == 0) why.push_back("no request completed");
  if (r.arrived > 0 && static_cast<double>(r.rejected) > reject_share * static_cast<double>(r.arrived))
    why.push_back(std::to_string(r.rejected) + " of " + std::to_string(r.arrived) + " requests rejected");
  // An aborted run's percentiles describe a queue still growing: saturation says it all.
  if (!r.aborted)
    for (const auto& scope : scopes) {
      const SummaryBlock* b = summary_block_of(r.summary, scope.class_name);
      if (!b) continue;
      const std::string label = label_classes && !scope.class_name.empty() ? " (" + scope.class_name + ")" : "";
      for (auto& miss : slo_violations(scope.targets, *b)) why.push_back("SLO missed: " + miss + label);
    }
  j.feasible = why.empty();
  for (const auto& w : why) j.reason += (j.reason.empty() ? "" : "; ") + w;
  return j;
}

}  // namespace servesim
