#pragma once
// The accumulators behind one SummaryBlock: the requests of one class, of one pool, or of
// the whole run. Sketches hold nanoseconds; the block reports milliseconds.
#include <cstdint>
#include <map>
#include <string>

#include "sim/core/time.h"
#include "sim/metrics/quantile_sketch.h"
#include "sim/metrics/request_record.h"
#include "sim/metrics/summary.h"

namespace servesim {

struct MetricGroup {
  QuantileSketch ttft_ns;   // arrival -> first token, completed requests with output > 0
  QuantileSketch tpot_ns;   // (finish - first token) / (output - 1), output > 1
  QuantileSketch itl_ns;    // every gap between consecutive tokens
  QuantileSketch e2el_ns;   // arrival -> finish, completed requests
  QuantileSketch queue_ns;  // arrival -> first scheduled step, completed requests

  std::int64_t completed = 0;
  Tick kv_transfer_ns = 0;  // summed over completed requests (disaggregated KV hand-over)
  std::int64_t rejected = 0;
  std::int64_t unfinished = 0;
  std::int64_t input_tokens = 0;         // prompt tokens of completed requests
  std::int64_t output_tokens = 0;        // tokens produced by completed requests
  std::int64_t cached_input_tokens = 0;  // of those prompt tokens, served from prefix cache
  std::map<std::string, std::int64_t> rejected_reasons;
  // Engine events, over every request whatever its outcome (docs/engine.md).
  std::int64_t preemptions = 0;          // times requests were preempted
  Tick preempted_ns = 0;                 // time they lost to it
  std::int64_t truncated = 0;            // requests cut to the model's context

  // Counts one request by its outcome (see MetricsRecorder::record_request).
  void add_request(const RequestRecord& record);
  // Adds every value and counter of `other`.
  void merge(const MetricGroup& other);
  // The block of fields in the order of docs/metrics.md.
  SummaryBlock to_block(Tick duration_ns) const;
};

}  // namespace servesim
