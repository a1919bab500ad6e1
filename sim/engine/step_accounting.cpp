#include "sim/engine/step_accounting.h"

#include <algorithm>
#include <cstdint>

#include "sim/core/assert.h"

namespace servesim {

namespace {

Tick cost_of_chunk(const CostModel& model, std::int64_t new_tokens, std::int64_t past_tokens) {
  BatchShape shape;
  shape.prefills.push_back(PrefillChunk{new_tokens, past_tokens, true});
  return model.step_cost(shape).total_ns;
}

// What the step's decode work alone costs: the shape without its prompt/recompute chunks.
// Speculative verify chunks (appended after them by Replica::speculate, one per
// extra_sampled_tokens / spec_k) are decode work and stay.
StepCost decode_only_cost(const StepPlan& plan, const StepAdditions& added, const CostModel& model,
                          const KnownDecodeCost& known) {
  const BatchShape& s = plan.shape;
  const std::int64_t verifies = added.spec_k > 0 ? s.extra_sampled_tokens / added.spec_k : 0;
  if (verifies == 0 && s.extra_sampled_tokens == 0 && s.decode_seqs == known.seqs &&
      s.decode_context_sum == known.context_sum)
    return known.cost;
  BatchShape d;
  d.prefills.assign(s.prefills.end() - static_cast<std::ptrdiff_t>(verifies), s.prefills.end());
  d.decode_seqs = s.decode_seqs;
  d.decode_context_sum = s.decode_context_sum;
  d.extra_sampled_tokens = s.extra_sampled_tokens;
  if (d.empty()) {
    StepCost none;
    none.total_ns = 0;
    return none;
  }
  return model.step_cost(d);
}

}  // namespace

void account_gap(RequestState& r, Tick now) {
  RequestAccounting& a = r.acct;
  const Tick from = a.mark_ns < 0 ? r.spec.arrival_ns : a.mark_ns;
  SS_ASSERT(now >= from, "attribution went back in time");
  a.mark_ns = now;
  const Tick d = now - from;
  if (d == 0) return;
  const bool before_first_step = r.first_scheduled_ns < 0 || r.first_scheduled_ns >= now;
  // A preemption that started before `now` (one starting now began at this step's
  // scheduling: what came before it was an ordinary stall).
  const bool preempted = r.preempted_at_ns >= 0 && r.preempted_at_ns < now;
  if (r.first_token_ns < 0) {
    if (before_first_step) a.ttft.queue_ns += d;
    else if (preempted) a.ttft.preemption_ns += d;
    else a.ttft.stall_ns += d;
  } else {
    if (preempted) a.decode.preemption_ns += d;
    else a.decode.stall_ns += d;
  }
}

StepSplit account_step_start(const StepPlan& plan, const StepAdditions& added, Tick now, Tick total_ns, Tick extra_ns, const StepCost& cost,
                             const CostModel& cost_model, const KnownDecodeCost& known) {
  for (RequestState* v : plan.preempted) account_gap(*v, now);
  StepCost alone;
  const bool mixed = added.prefill_work_tokens > 0 && added.decode_work_chunks > 0;
  if (mixed) alone = decode_only_cost(plan, added, cost_model, known);
  StepSplit split =
      split_step(added.decode_work_chunks, added.prefill_work_tokens, total_ns, extra_ns, cost, mixed ? &alone : nullptr);
  split.kv_load_ns = added.kv_load_ns;  // part of extra_ns (Replica::begin_step)
  split.lora_load_ns = added.lora_load_ns;  // likewise (Replica::load_adapters)
  // GPU-time shares: prefill time by new tokens, decode time evenly per decode, each scaled
  // so the step's shares sum to its whole time (extra included).
  const double scale = split.scale;
  // One visit per chunk: its interval since its last mark, then its share.
  for (const auto& c : plan.chunks) {
    RequestState& r = *c.request;
    account_gap(r, now);
    GpuTimeShares& g = r.acct.gpu;
    if (is_decode_work(c)) {
      g.decode_units += split.decode_units;
      continue;
    }
    const double share = static_cast<double>(split.prefill_ns) * static_cast<double>(c.num_tokens) /
                         static_cast<double>(split.prefill_tokens) * scale;
    // Prefix-cache hits are not computed, but every prompt chunk still reads their KV in
    // attention: that extra time (this chunk priced over its past with and without the
    // cached tokens) is what the cached tokens cost.
    const std::int64_t past = r.num_computed_tokens;
    const std::int64_t cached = r.preemptions == 0 && r.in_prefill() ? std::min(past, r.cached_prompt_tokens) : 0;
    double cached_share = 0;
    if (cached > 0) {
      const Tick with = cost_of_chunk(cost_model, c.num_tokens, past);
      const Tick without = cost_of_chunk(cost_model, c.num_tokens, past - cached);
      cached_share = std::min(share, static_cast<double>(std::max<Tick>(0, with - without)) * scale);
      // Once, at its first chunk: what computing the cached tokens too would have added.
      if (r.first_scheduled_ns == now && r.acct.prefill_saved_ns == 0) {
        const Tick full = cost_of_chunk(cost_model, c.num_tokens + cached, past - cached);
        r.acct.prefill_saved_ns = std::max<Tick>(0, full - with);
      }
    }
    const std::int64_t share_units = GpuTimeShares::units_from_ns(share);
    const std::int64_t cached_units = GpuTimeShares::units_from_ns(cached_share);
    g.cached_units += cached_units;
    g.prefill_units += share_units - cached_units;
  }
  return split;
}

}  // namespace servesim
