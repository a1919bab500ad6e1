#pragma once
// The one test `capacity` and `search` apply to a run at a given load (docs/sweeps.md): not
// saturated (the queue does not grow without bound; stopped early when that is plain),
// something completed, rejections within the allowance, and every SLO target met.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/io/scenario.h"
#include "sim/io/slo_targets.h"

namespace servesim {

// Where objectives are checked: "" is the overall block, else a class.
struct SloScope {
  std::string class_name;
  std::vector<SloTarget> targets;
};

struct RunJudgement {
  RunResult result;
  bool feasible = false;
  std::string reason;  // why not, "; "-separated; empty when feasible
};

// Sequence slots of the whole cluster (replicas x max_num_seqs), the saturation watch's bound.
std::int64_t sequence_slots(const Scenario& s);

// The summary block of `class_name` ("" for overall), or nullptr if the run has no such class.
const SummaryBlock* summary_block_of(const RunSummary& summary, const std::string& class_name);

// Runs `s` and judges it. A scope whose class is not in the run is skipped; with
// `label_classes`, SLO misses name their class. Throws ConfigError if the run cannot be built.
RunJudgement run_and_judge(const Scenario& s, const std::vector<SloScope>& scopes, double reject_share,
                           bool early_stop, bool label_classes);

}  // namespace servesim
