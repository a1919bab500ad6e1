// A step's start beyond the scheduler and the model's kernels: the plan's extras (CPU
// overheads, swap-in over the host link, speculation's verify chunks and draft passes)
// and the first-step marks (docs/engine.md has the rules and formulas).
#include "sim/engine/replica.h"

namespace servesim {

Tick Replica::prepare_step(Tick now) {
  for (RequestState* v : plan_.preempted)
    if (v->preempted_at_ns < 0) v->preempted_at_ns = now;
  // Swap-in: a swapped-out request scheduled again brings its KV back from host memory.
  // Only while this replica's swap space holds some (each swapped request's blocks are
  // counted there): the check spares a cache line of every request in every step.
  if (swap_.used_blocks() > 0) {
    for (const auto& c : plan_.chunks) {
      RequestState& r = *c.request;
      if (r.swapped_blocks() == 0) continue;
      added_.swap_in_tokens += r.num_computed_tokens;
      swap_.give_back(kv_.take_swapped_in(r));
    }
  }
  if (kv_.has_tiers()) load_from_tiers();
  if (config_.speculative.enabled) speculation_.speculate(config_, plan_, added_, kv_);
  if (lora_cache_) load_adapters();

  // CPU overheads: per step, per request scheduled for the first time, per token sampled.
  // The same pass (one visit per request at a step's start, besides the scheduler's)
  // marks first steps, telling the listener, and counts the work for account_step_start.
  const EngineOverheads& o = config_.overheads;
  std::int64_t first_time = 0, sampled = 0;
  for (const auto& c : plan_.chunks) {
    RequestState& r = *c.request;
    // See kv_cache_manager.h. Speculation's accepted tokens are computed by this step too.
    kv_.cache_private_blocks_at_step_start(r, c.num_tokens + c.spec_accepted);
    if (c.num_tokens == r.remaining() && r.spec.output_tokens > 0) sampled += 1 + c.spec_accepted;
    if (is_decode_work(c)) added_.decode_work_chunks += 1;
    else added_.prefill_work_tokens += c.num_tokens;
    if (r.first_scheduled_ns < 0) {
      ++first_time;
      r.first_scheduled_ns = now;
      listener_.on_first_scheduled(r, now);
    }
  }
  // The lazy decodes: each samples one token and is decode work.
  sampled += plan_.lazy_decodes;
  added_.decode_work_chunks += plan_.lazy_decodes;
  added_.overhead_ns = o.per_step_ns + o.per_request_ns * first_time + o.per_token_ns * sampled;
  added_.swap_ns = swap_.transfer_ns(plan_.swap_out_tokens + added_.swap_in_tokens);
  stats_.overhead_ns += added_.overhead_ns;
  stats_.swap_ns += added_.swap_ns;
  stats_.draft_ns += added_.draft_ns;
  return added_.overhead_ns + added_.swap_ns + added_.draft_ns + added_.kv_load_ns + added_.lora_load_ns +
         added_.lora_compute_ns;
}

void Replica::load_adapters() {
  // vLLM activates the batch's adapters before its forward pass (set_active_adapters);
  // those already in GPU slots are touched first, so that a load evicts none the batch uses
  // (a step's batch names at most max_loras adapters: admit_waiting).
  std::int64_t lora_tokens = 0;
  for (const auto& c : plan_.chunks) {
    const int adapter = c.request->spec.lora_adapter;
    if (adapter == 0) continue;
    lora_tokens += c.num_tokens + c.spec_accepted;
    const bool on_gpu = lora_cache_->on_gpu(adapter);
    // Not yet marked (below in prepare_step): the request's first step.
    if (c.request->first_scheduled_ns < 0) ++(on_gpu ? stats_.lora_request_hits : stats_.lora_request_misses);
    if (on_gpu) lora_cache_->activate(adapter);
  }
  LoraStepAdapters adapters(running_, config_.lora.max_loras);
  added_.lora_compute_ns = lora_cost_.compute_ns(lora_tokens, adapters.count());
  stats_.lora_compute_ns += added_.lora_compute_ns;
  for (const auto& c : plan_.chunks) {
    const int adapter = c.request->spec.lora_adapter;
    if (adapter == 0 || lora_cache_->on_gpu(adapter)) continue;
    const LoraAdapterCache::Where from = lora_cache_->activate(adapter);
    added_.lora_load_ns += lora_cost_.load_ns(from);
    ++stats_.lora_loads[from == LoraAdapterCache::Where::disk ? 1 : 0];
  }
  stats_.lora_load_ns += added_.lora_load_ns;
}

void Replica::load_from_tiers() {
  // The prefix blocks admissions found in the tiers come back to HBM before their chunks
  // compute, and become hits there. The blocks stored since the last step (HBM's
  // evictions) share the host link with them; stores alone run in the background
  // (a copy stream), delaying no step.
  const std::int64_t block_tokens = kv_.block_size();
  std::int64_t link_tokens = 0, disk_tokens = 0;
  for (const auto& c : plan_.chunks) {
    RequestState& r = *c.request;
    const std::int64_t blocks = r.tier_load_blocks(KvTiers::kCpu) + r.tier_load_blocks(KvTiers::kDisk);
    if (blocks == 0) continue;
    const std::array<std::int64_t, 2> loads = kv_.take_tier_loads(r);
    kv_.register_loaded_blocks(r, blocks);
    link_tokens += blocks * block_tokens;
    disk_tokens += loads[KvTiers::kDisk] * block_tokens;
  }
  const std::int64_t stored_tokens = kv_.take_stored_blocks() * block_tokens;
  stats_.kv_stored_tokens += stored_tokens;
  if (link_tokens == 0) return;
  stats_.kv_loaded_tokens += link_tokens;
  added_.kv_load_ns = tier_link_.transfer_ns(link_tokens + stored_tokens, disk_tokens);
}

}  // namespace servesim
