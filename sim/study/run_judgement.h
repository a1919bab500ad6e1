#pragma once
// The one test `capacity` and `search` apply to a run at a given load (docs/sweeps.md): not
// saturated by the rule every run is judged by (sim/cluster/saturation_verdict.h: the queue
// does not grow without bound, stopped early when that is plain, and the offered rate is
// sustained over the second half of the arrivals), something completed, rejections within
// the allowance, and every SLO target met. A run too short to tell a shortfall of
// `sustain_tolerance` from arrival noise is not feasible either: `too_short` says so, and
// by how much to lengthen it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/scenario/scenario.h"
#include "sim/study/slo_targets.h"
#include "sim/metrics/sustained_rate.h"

namespace servesim {

struct RunJudgement {
  RunResult result;
  bool feasible = false;
  std::string reason;  // why not, "; "-separated; empty when feasible
  SustainedRate sustained;  // measured unless the run saturated or completed nothing
  bool too_short = false;   // cannot be judged at this length (sustained.needed_scale)
  // Infeasible only through rejections that no load changes (a request longer than the
  // context or than a replica's KV cache): a lower rate fails the same way.
  bool fails_at_any_load = false;
};

// Sequence slots of the whole cluster (replicas x max_num_seqs), the saturation watch's bound.
std::int64_t sequence_slots(const Scenario& s);

// The summary block of `class_name` ("" for overall), or nullptr if the run has no such class.
const SummaryBlock* summary_block_of(const RunSummary& summary, const std::string& class_name);

// Runs `s` and judges it. A scope whose class is not in the run is skipped; with
// `label_classes`, SLO misses name their class. Throws ConfigError if the run cannot be built.
RunJudgement run_and_judge(const Scenario& s, const std::vector<SloScope>& scopes, double reject_share,
                           bool early_stop, bool label_classes, double sustain_tolerance = kSustainTolerance);

// A scenario run `scale` times longer: stop.requests (and stop.time) multiplied.
Scenario lengthened(Scenario s, double scale);

// The stop that would judge a run too short to judge, as capacity and explain lengthen one
// (at least 2x, 1.25x what the run's own arrivals ask): {"stop.requests", "800"} or
// {"stop.time", "120s"}; {"", ""} when the scenario has neither.
std::pair<std::string, std::string> length_to_judge(const Scenario& s, double needed_scale);

// run_and_judge, lengthening a run too short to judge (by what it asks, at least 2x) until
// it can be judged or it has grown `max_scale` times; `note` says how long it ran when it
// was lengthened ("" otherwise). A run that is still too short stays infeasible, with
// the length it needs in its reason.
RunJudgement judge_long_enough(const Scenario& s, const std::vector<SloScope>& scopes, double reject_share,
                               bool early_stop, bool label_classes, double sustain_tolerance, double max_scale,
                               std::string* note);

}  // namespace servesim
