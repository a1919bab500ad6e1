#pragma once
// What a replica measures as it runs, reported to whoever keeps the metrics. The engine
// owns this interface and knows nothing of sketches or records; sim/metrics subscribes
// (ReplicaMetrics), and a test can listen with anything else.
//
// Inter-token gaps come folded: equal consecutive gaps of one class as one call with a
// count, and the lazy decodes' gaps of many steps as runs (lazy_decodes.h), so the cost
// is per step, not per token. Their order is the order the tokens came in.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/count_run.h"
#include "sim/core/time.h"

namespace servesim {

struct RequestState;

class MeasurementListener {
 public:
  virtual ~MeasurementListener() = default;
  // `count` inter-token gaps of `gap_ns` each, of requests of class `class_index`
  // (second token onwards; speculative tokens accepted in one step come in its chunk, with no gap).
  virtual void on_token_gaps(int class_index, Tick gap_ns, std::int64_t count) = 0;
  // Gaps of several steps at once: gaps[i] came to `runs`' counts of requests of the class
  // (CountRun: the run holding i gives the count).
  virtual void on_token_gap_runs(int class_index, std::span<const Tick> gaps, const std::vector<CountRun>& runs) = 0;
  // The request produced its last token at `now_ns`; the client sees it `frontend_ns`
  // later (the engine's front end, overheads.frontend). Once per completed request,
  // before the replica's ReplicaListener hears of it.
  virtual void on_request_completed(const RequestState& request, Tick now_ns, Tick frontend_ns) = 0;
  // The replica refused the request at `now_ns` for `reason` (a static string).
  virtual void on_request_rejected(const RequestState& request, Tick now_ns, const char* reason) = 0;
};

}  // namespace servesim
