#pragma once
// The accumulators behind one SummaryBlock: the requests of one class, of one pool, or of
// the whole run. Sketches hold nanoseconds; the block reports milliseconds.
#include <cstdint>
#include <map>
#include <string>

#include "sim/core/time.h"
#include "sim/metrics/quantile_sketch.h"
#include "sim/metrics/request_record.h"
#include "sim/metrics/slo.h"
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
  std::int64_t tier_hit_tokens[2] = {0, 0};  // of those, loaded from the CPU / disk KV tier
  std::map<std::string, std::int64_t> rejected_reasons;
  // Engine events, over every request whatever its outcome (docs/engine.md).
  std::int64_t preemptions = 0;          // times requests were preempted
  Tick preempted_ns = 0;                 // time they lost to it
  std::int64_t truncated = 0;            // requests cut to the model's context
  // Requests whose drawn prompt / output length was clamped, raised or capped by the
  // workload (sampled_lengths.h), whatever their outcome.
  std::int64_t clamped_input = 0;
  std::int64_t clamped_output = 0;

  // Latency attribution, summed over completed requests (docs/metrics.md).
  TtftParts ttft_parts;                  // of those with a first token
  Tick ttft_frontend_ns = 0;             // their front-end part (RequestRecord::frontend_ns)
  std::int64_t ttft_requests = 0;        // how many that is
  DecodeParts decode_parts;              // over all gaps of those with 2+ tokens
  std::int64_t decode_gaps = 0;          // chunks - 1 of each (output_tokens_done - 1 - spec_accepted_tokens)
  // Cost (USD) of completed requests by token class, and what prefix hits saved.
  double prefill_usd = 0, cached_usd = 0, decode_usd = 0;
  std::int64_t sessions = 0;             // first turns, and requests outside a session
  Tick prefill_saved_ns = 0;
  // SLO goodput: completed requests that met every SLO of their class.
  std::int64_t slo_met = 0;
  std::int64_t slo_met_mean_itl = 0;     // the same with ITL judged on the mean gap

  // Counts one request by its outcome (see MetricsRecorder::record_request).
  // `usd_per_replica_ns`: the price of one ns of the request's replica (all its GPUs);
  // `slo`: its class's objectives.
  // The buckets of one request's latencies, found by the first group that adds it and
  // reused by the next (a request is added to its pool's group and its class's): every
  // group's sketches have the default accuracy, so a value's bucket is the same in each.
  struct LatencyBuckets {
    int ttft = QuantileSketch::kUnknownIndex;
    int tpot = QuantileSketch::kUnknownIndex;
    int e2el = QuantileSketch::kUnknownIndex;
    int queue = QuantileSketch::kUnknownIndex;
  };
  void add_request(const RequestRecord& record, double usd_per_replica_ns = 0, const SloTargets& slo = {});
  void add_request(const RequestRecord& record, double usd_per_replica_ns, const SloTargets& slo,
                   LatencyBuckets& buckets);
  // Adds every value and counter of `other`.
  void merge(const MetricGroup& other);
  // The block of fields in the order of docs/metrics.md.
  SummaryBlock to_block(Tick duration_ns) const;
  // With KV tiers (MetricsRecorder::set_kv_tiers): the "kv_tiers" object (hits per tier)
  // and the kv_load part of the TTFT attribution.
  void add_kv_tier_fields(SummaryBlock& block) const;
  // With multi-LoRA (MetricsRecorder::set_lora): the lora_load part of the TTFT attribution.
  void add_lora_fields(SummaryBlock& block) const;

 private:
  void add_accounting(const RequestRecord& record, double usd_per_replica_ns);
  void add_new_fields(SummaryBlock& block, Tick duration_ns) const;
};

}  // namespace servesim
