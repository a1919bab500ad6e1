#pragma once
// Latency attribution and GPU-time shares of the requests in one engine step
// (docs/metrics.md, "Latency attribution" and "Cost"). O(chunks) per step; two or three
// extra cost-model calls only on steps that mix prefill and decode work or read a
// prefix-cache hit.
#include <algorithm>
#include <cstdint>

#include "sim/core/assert.h"
#include "sim/core/time.h"
#include "sim/engine/request_state.h"
#include "sim/engine/scheduler.h"
#include "sim/engine/step_additions.h"
#include "sim/hardware/cost_model.h"

namespace servesim {

// How one step's time divides. total = model + extra; model = prefill + decode.
struct StepSplit {
  Tick total_ns = 0;
  Tick extra_ns = 0;    // engine CPU overheads, swap traffic, draft passes, KV-tier loads
  Tick kv_load_ns = 0;  // of extra_ns, the KV tiers' loads and stores (a part of its own)
  Tick lora_load_ns = 0;  // of extra_ns, multi-LoRA adapters loaded into GPU slots (a part of its own)
  Tick decode_ns = 0;   // of the model time, what the decode work alone costs
  Tick prefill_ns = 0;  // the rest of the model time: what the prefill chunks added
  std::int64_t prefill_tokens = 0;  // new tokens of the prefill-work chunks
  std::int64_t decode_chunks = 0;   // one-token decodes (and speculative verifies)
  std::int64_t decode_units = 0;    // each decode chunk's GPU-time share (GpuTimeShares units)
  double scale = 1;                 // total / model: what spreads the extras over the parts
  // Work per GPU of each phase (utilisation): the decode work's alone, prefill the rest.
  double prefill_flops = 0, decode_flops = 0, prefill_bytes = 0, decode_bytes = 0;
};

// A chunk is decode work when it computes the one token of a request past its prompt (the
// same rule as sched::add_chunk); everything else (prompt chunks, recompute) is prefill work.
inline bool is_decode_work(const ScheduledChunk& c) { return !c.request->in_prefill() && c.num_tokens == 1; }

// At a step's start, once the plan is final and priced (total_ns includes extra_ns):
// closes every scheduled or preempted request's interval since its last mark (queue,
// stall or preemption), and charges each scheduled request its share of the step's GPU
// time. Returns the split for account_chunk_end.
// `cost` is the model's price of plan.shape; added.decode_work_chunks and
// added.prefill_work_tokens must be set (Replica::prepare_step counts them).
// `known`, when set, is a decode-only step's price the caller already has (the step a
// decode run priced and a submit cut off): the decode work alone is that step's shape
// whenever its rows match, and a step's price depends on its shape alone.
struct KnownDecodeCost {
  std::int64_t seqs = -1;  // -1: none
  std::int64_t context_sum = 0;
  StepCost cost;
};
StepSplit account_step_start(const StepPlan& plan, const StepAdditions& added, Tick now_ns, Tick total_ns,
                             Tick extra_ns, const StepCost& cost, const CostModel& cost_model,
                             const KnownDecodeCost& known = {});
// The split alone (account_step_start's first part): `cost` is the model's price of the
// step, `decode_alone` that of its decode work alone, needed when it has both decode
// chunks and prefill tokens.
// Inline: a decode run applies it to each of its steps (Replica::apply_quiet_steps), where
// the constant arguments fold away.
inline StepSplit split_step(std::int64_t decode_chunks, std::int64_t prefill_tokens, Tick total_ns, Tick extra_ns,
                            const StepCost& cost, const StepCost* decode_alone);
// At the step's end, for each of its chunks before the chunk's tokens are emitted: gives
// the step's time to the request's parts (own compute, batch share or interference,
// overhead, or preemption). Inline: Replica::on_step_end calls it in its own loop over the
// chunks, so that each request is visited once at a step's end.
// REQUIRES: end_ns - start_ns == split.total_ns.
inline void account_chunk_end(const ScheduledChunk& c, const StepSplit& split, Tick start_ns, Tick end_ns);
// Closes a request's interval [mark, now] as queue, stall or preemption.
void account_gap(RequestState& request, Tick now_ns);

namespace detail {
// a * b / c rounded down. A step's time (a, ns) times its tokens (b) stays far below 2^63:
// 100 s x 10^7 tokens is 10^18. REQUIRES: c > 0, a, b >= 0.
inline Tick mul_div(Tick a, std::int64_t b, std::int64_t c) {
  SS_ASSERT(b == 0 || a <= INT64_MAX / b, "step share overflow");
  return a * b / c;
}
}  // namespace detail

inline StepSplit split_step(std::int64_t decode_chunks, std::int64_t prefill_tokens, Tick total_ns, Tick extra_ns,
                            const StepCost& cost, const StepCost* decode_alone) {
  StepSplit split;
  split.total_ns = total_ns;
  split.extra_ns = extra_ns;
  const Tick model_ns = total_ns - extra_ns;
  SS_ASSERT(model_ns >= 1 && extra_ns >= 0, "a step's model time must be positive");
  split.decode_chunks = decode_chunks;
  split.prefill_tokens = prefill_tokens;
  // Decode part: the whole model time in a pure decode step, none in a pure prefill step,
  // and in a mixed step what the decodes would have cost alone; prefills own the rest.
  if (split.prefill_tokens == 0) {
    split.decode_ns = model_ns;
    split.decode_flops = cost.flops;
    split.decode_bytes = cost.bytes;
  } else if (split.decode_chunks > 0) {
    SS_ASSERT(decode_alone != nullptr, "a mixed step's split needs the decodes' cost alone");
    split.decode_ns = std::min(model_ns, decode_alone->total_ns);
    split.decode_flops = std::min(cost.flops, decode_alone->flops);
    split.decode_bytes = std::min(cost.bytes, decode_alone->bytes);
  }
  split.prefill_ns = model_ns - split.decode_ns;
  split.prefill_flops = cost.flops - split.decode_flops;
  split.prefill_bytes = cost.bytes - split.decode_bytes;
  // Every decode of the step gets the same share of its whole time (extra included), in
  // GpuTimeShares units.
  const double scale = static_cast<double>(total_ns) / static_cast<double>(model_ns);
  split.scale = scale;
  split.decode_units =
      split.decode_chunks > 0
          ? GpuTimeShares::units_from_ns(static_cast<double>(split.decode_ns) / static_cast<double>(split.decode_chunks) * scale)
          : 0;
  return split;
}

inline void account_chunk_end(const ScheduledChunk& c, const StepSplit& split, Tick start_ns, Tick end_ns) {
  RequestState& r = *c.request;
  RequestAccounting& a = r.acct;
  SS_ASSERT(a.mark_ns == start_ns, "a scheduled request's attribution must reach its step's start");
  a.mark_ns = end_ns;
  const bool prefill_phase = r.first_token_ns < 0;
  if (r.preempted_at_ns >= 0) {  // recomputing (or swapping back) what a preemption took
    (prefill_phase ? a.ttft.preemption_ns : a.decode.preemption_ns) += split.total_ns;
    return;
  }
  const Tick model_ns = split.total_ns - split.extra_ns;
  Tick own = 0;
  if (is_decode_work(c)) own = split.decode_ns;
  else own = detail::mul_div(split.prefill_ns, c.num_tokens, split.prefill_tokens);
  const Tick rest = model_ns - own;
  if (prefill_phase) {
    a.ttft.prefill_compute_ns += own;
    a.ttft.batch_share_ns += rest;
    a.ttft.overhead_ns += split.extra_ns - split.kv_load_ns - split.lora_load_ns;
    a.ttft.kv_load_ns += split.kv_load_ns;
    a.ttft.lora_load_ns += split.lora_load_ns;
  } else {
    a.decode.decode_compute_ns += own;
    a.decode.prefill_interference_ns += rest;
    a.decode.overhead_ns += split.extra_ns;
  }
}

}  // namespace servesim
