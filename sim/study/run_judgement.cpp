#include "sim/study/run_judgement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/cluster/saturation_watch.h"
#include "sim/engine/rejection_fixes.h"
#include "sim/study/summary_json.h"
#include "sim/core/text.h"

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

namespace {

// What a rejection reason means and what changes it.
std::string rejection_hint(const std::string& reason) {
  if (reason == "exceeds_kv_capacity")
    return std::string("a request needs more KV cache than a replica holds: ") + kExceedsKvCapacityFix;
  if (reason == "exceeds_max_context")
    return std::string("its prompt plus output is longer than the model's context: ") + kExceedsMaxContextFix;
  if (reason == "queue_full") return "the admission queue was full: raise its bound in cluster.admission";
  if (reason == "timed_out") return "it waited longer than its class's timeout";
  return "";
}

}  // namespace

Scenario lengthened(Scenario s, double scale) {
  if (s.stop.requests) s.stop.requests = static_cast<std::int64_t>(std::ceil(static_cast<double>(*s.stop.requests) * scale));
  if (s.stop.time_ns) s.stop.time_ns = static_cast<Tick>(std::ceil(static_cast<double>(*s.stop.time_ns) * scale));
  return s;
}

std::pair<std::string, std::string> length_to_judge(const Scenario& s, double needed_scale) {
  const Scenario longer = lengthened(s, std::max(2.0, 1.25 * needed_scale));
  if (longer.stop.requests) return {"stop.requests", std::to_string(*longer.stop.requests)};
  if (longer.stop.time_ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6gs", seconds_from_ticks(*longer.stop.time_ns));
    return {"stop.time", buf};
  }
  return {"", ""};
}

RunJudgement run_and_judge(const Scenario& s, const std::vector<SloScope>& scopes, double reject_share,
                           bool early_stop, bool label_classes, double sustain_tolerance) {
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  // The run's own watch (Simulation::note_saturation): one rule for summary.json and here.
  const SaturationWatch& watch = sim.saturation_watch();
  sim.set_stop_check([&](std::int64_t, std::int64_t) { return early_stop && watch.tripped_early(); });
  RunJudgement j;
  j.result = sim.run();
  describe_deployment(j.result.summary, s);
  const RunResult& r = j.result;
  // The rule every run's summary uses, at this tolerance (summary.json's at kSustainTolerance).
  const SaturationVerdict v = sim.saturation_verdict(sustain_tolerance);
  std::vector<std::string> why;
  // With several pools, the one that ran short (saturation_verdict.h, name_binding_pool):
  // a prefill/decode split's capacity is the short side's.
  const std::string in_pool =
      s.cluster.pools.size() > 1 && v.pool != "none" && v.pool != "unknown" ? " in pool " + v.pool : "";
  if (v.growing)
    why.push_back("saturated by " + v.by + in_pool + ": " + std::to_string(watch.excess()) + " requests backlogged " +
                  (r.aborted ? "after " + std::to_string(r.arrived) + " arrivals, run stopped early"
                             : "at the last arrival, and growing"));
  if (r.completed == 0) why.push_back("no request completed");
  if (!v.growing && !r.aborted && r.completed > 0) {
    j.sustained = v.sustained;
    const SustainedRate& m = j.sustained;
    char buf[240];
    if (v.too_short) {
      j.too_short = true;
      std::snprintf(buf, sizeof buf, "; lengthen it %.2gx", std::ceil(m.needed_scale * 10) / 10);
      why.push_back(m.why_short + buf);
    } else if (v.saturated) {
      std::snprintf(buf, sizeof buf,
                    "not sustained: served %.4g of %.4g req/s offered over the second half of its arrivals "
                    "(%.3g%% short, tolerance %s; short of %s%s)",
                    m.served_per_s, m.offered_per_s, 100 * (1 - m.served_per_s / m.offered_per_s),
                    percent_3sig(sustain_tolerance).c_str(), v.resource.c_str(), in_pool.c_str());
      why.push_back(buf);
    }
  }
  const bool too_many_rejected =
      r.arrived > 0 && static_cast<double>(r.rejected) > reject_share * static_cast<double>(r.arrived);
  if (too_many_rejected) {
    // Rejections for a request's own size happen at any rate; the others (a full queue, a
    // timeout) come with load.
    j.fails_at_any_load = why.empty();
    for (const auto& [reason, count] : r.summary.overall.rejected_reasons)
      if (reason != "exceeds_max_context" && reason != "exceeds_kv_capacity") j.fails_at_any_load = false;
    std::string text = std::to_string(r.rejected) + " of " + std::to_string(r.arrived) + " requests rejected (";
    bool first = true;
    for (const auto& [reason, count] : r.summary.overall.rejected_reasons) {
      text += (first ? "" : ", ") + std::to_string(count) + " " + reason;
      const std::string hint = rejection_hint(reason);
      if (!hint.empty()) text += ": " + hint;
      first = false;
    }
    text += std::string(first ? "" : "; ") + "--max-rejected " + percent_3sig(reject_share) + " allows none of them; " +
            "--max-rejected " + percent_3sig(static_cast<double>(r.rejected) / static_cast<double>(r.arrived)) +
            " would allow these)";
    why.push_back(text);
  }
  // An aborted run's percentiles describe a queue still growing: saturation says it all.
  if (!r.aborted)
    for (const auto& scope : scopes) {
      const SummaryBlock* b = summary_block_of(r.summary, scope.class_name);
      if (!b) continue;
      const std::string label = label_classes && !scope.class_name.empty() ? " (" + scope.class_name + ")" : "";
      for (auto& miss : slo_violations(scope.targets, *b)) why.push_back("SLO missed: " + miss + label);
    }
  j.fails_at_any_load = j.fails_at_any_load && why.size() == 1;  // the rejections alone
  j.feasible = why.empty();
  for (const auto& w : why) j.reason += (j.reason.empty() ? "" : "; ") + w;
  return j;
}

RunJudgement judge_long_enough(const Scenario& s, const std::vector<SloScope>& scopes, double reject_share,
                               bool early_stop, bool label_classes, double sustain_tolerance, double max_scale,
                               std::string* note) {
  note->clear();
  RunJudgement j = run_and_judge(s, scopes, reject_share, early_stop, label_classes, sustain_tolerance);
  double scale = 1;
  while (j.too_short && scale < max_scale && (s.stop.requests || s.stop.time_ns)) {
    // Ask a little more than the estimate, which is itself measured on a short run.
    scale = std::min(max_scale, scale * std::max(2.0, 1.25 * j.sustained.needed_scale));
    const Scenario longer = lengthened(s, scale);
    j = run_and_judge(longer, scopes, reject_share, early_stop, label_classes, sustain_tolerance);
    char buf[160];
    if (longer.stop.requests)
      std::snprintf(buf, sizeof buf, "run lengthened %.3gx to %lld requests", scale, static_cast<long long>(*longer.stop.requests));
    else
      std::snprintf(buf, sizeof buf, "run lengthened %.3gx to %.4g s", scale, seconds_from_ticks(*longer.stop.time_ns));
    *note = buf;
  }
  return j;
}

}  // namespace servesim
