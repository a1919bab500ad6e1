#pragma once
// Which of `servesim explain`'s figures can be set against the base's (docs/explain.md,
// "Overloaded variants" and "Several tokens per step"). A run that did not keep up reports
// the latencies of a queue that never settled, or of only the requests it let in, so its
// changes are not a lever's effect; a run whose steps emit several tokens streams them in
// one chunk per step, so its ITL percentiles say how often chunks come, not tokens.
#include <string>

#include "sim/metrics/summary.h"
#include "sim/scenario/scenario.h"

namespace servesim {

// Why `run` is overloaded, or "" when it kept up: "saturated by kv_cache, short of
// compute" (summary `saturated`, `saturated_by`, `saturated_resource`: the one saturation
// rule, sim/cluster/saturation_verdict.h) and/or
// "rejected 12 more requests than the base (queue_full 12)" (summary `rejected_reasons`).
// With `base`, every rejection beyond the base's of the same reason counts: requests the
// workload makes too long for the model are the base's too, and are not the lever's doing.
// Without (judging the base itself), only the rejections of load count: `queue_full` and
// `timed_out` at admission (docs/cluster.md).
std::string overload_of(const SummaryBlock& run, const SummaryBlock* base);

// Why whether `run` kept up cannot be told, or "": summary `too_short_to_judge`, with its
// `saturation_note` (the served and offered rates and the noise that hides a shortfall).
std::string too_short_of(const SummaryBlock& run);

// True when some pool runs speculative decoding: a verify pass emits the accepted draft
// tokens together with its own, so their inter-token gaps are 0 (docs/engine.md).
bool several_tokens_per_step(const Scenario& s);

}  // namespace servesim
