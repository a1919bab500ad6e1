// The parts of a replica's step that are not the scheduler and not the model's kernels:
// the context limit, preemption accounting, swap time, speculative decoding and CPU
// overheads (docs/engine.md has the rules and formulas).
#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"
#include "sim/engine/replica.h"
#include "sim/engine/speculative.h"

namespace servesim {

double expected_tokens_per_step(double alpha, int k) {
  SS_ASSERT(alpha >= 0 && alpha <= 1 && k >= 0, "speculative parameters out of range");
  if (alpha >= 1) return k + 1.0;
  return (1.0 - std::pow(alpha, k + 1)) / (1.0 - alpha);
}

void Replica::set_swap_space(std::int64_t capacity_blocks, double kv_bytes_per_token, double host_link_bytes_per_s) {
  swap_ = SwapSpace(capacity_blocks);
  swap_bytes_per_token_ = kv_bytes_per_token;
  host_link_bytes_per_s_ = host_link_bytes_per_s;
}

const char* Replica::apply_context_limit(RequestState& r) {
  RequestSpec& s = r.spec;
  if (max_context_tokens_ <= 0 || s.prompt_tokens + s.output_tokens <= max_context_tokens_) return nullptr;
  if (config_.on_context_overflow == ContextOverflow::reject) return "exceeds_max_context";
  // truncate: the output gives way first (as an API server caps max_tokens at what the
  // context leaves); a prompt that alone fills the context keeps its first tokens and room
  // for one output token.
  const std::int64_t before = s.prompt_tokens + s.output_tokens;
  if (s.prompt_tokens < max_context_tokens_) {
    s.output_tokens = max_context_tokens_ - s.prompt_tokens;
  } else {
    s.output_tokens = std::min<std::int64_t>(s.output_tokens, 1);
    s.prompt_tokens = max_context_tokens_ - s.output_tokens;
    // Hashes of blocks past the new end no longer describe the prompt.
    const auto full_blocks = static_cast<std::size_t>(s.prompt_tokens / config_.block_size);
    if (s.block_hashes.size() > full_blocks) s.block_hashes.resize(full_blocks);
  }
  r.truncated_tokens = before - (s.prompt_tokens + s.output_tokens);
  return nullptr;
}

const EngineConfig& Replica::scheduling_config() {
  const SpeculativeConfig& spec = config_.speculative;
  if (!spec.enabled) return config_;
  if (!step_config_) step_config_ = std::make_unique<EngineConfig>(config_);
  // vLLM counts the proposed tokens against the step's budget. Reserve them for the
  // running decodes, but never so much that the decodes themselves are left out.
  const auto decodes = static_cast<std::int64_t>(
      std::count_if(running_.begin(), running_.end(), [](const RequestState* r) { return !r->in_prefill(); }));
  step_config_->max_batched_tokens = std::max(decodes, config_.max_batched_tokens - spec.k * decodes);
  step_config_->max_batched_tokens = std::max<std::int64_t>(step_config_->max_batched_tokens, 1);
  return *step_config_;
}

Tick Replica::prepare_step(Tick now) {
  for (RequestState* v : plan_.preempted)
    if (v->preempted_at_ns < 0) v->preempted_at_ns = now;
  // Swap-in: a swapped-out request scheduled again brings its KV back from host memory.
  // Only while this replica's swap space holds some (each swapped request's blocks are
  // counted there): the check spares a cache line of every request in every step.
  if (swap_.used_blocks() > 0) {
    for (const auto& c : plan_.chunks) {
      RequestState& r = *c.request;
      if (r.swapped_blocks == 0) continue;
      plan_.swap_in_tokens += r.num_computed_tokens;
      swap_.give_back(r.swapped_blocks);
      r.swapped_blocks = 0;
    }
  }
  if (config_.speculative.enabled) speculate();

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
    if (is_decode_work(c)) plan_.decode_work_chunks += 1;
    else plan_.prefill_work_tokens += c.num_tokens;
    if (r.first_scheduled_ns < 0) {
      ++first_time;
      r.first_scheduled_ns = now;
      listener_.on_first_scheduled(r, now);
    }
  }
  // The lazy decodes: each samples one token and is decode work.
  sampled += plan_.lazy_decodes;
  plan_.decode_work_chunks += plan_.lazy_decodes;
  plan_.overhead_ns = o.per_step_ns + o.per_request_ns * first_time + o.per_token_ns * sampled;
  const std::int64_t moved = plan_.swap_out_tokens + plan_.swap_in_tokens;
  if (moved > 0 && host_link_bytes_per_s_ > 0)
    plan_.swap_ns = static_cast<Tick>(std::llround(static_cast<double>(moved) * swap_bytes_per_token_ /
                                                   host_link_bytes_per_s_ * 1e9));
  stats_.overhead_ns += plan_.overhead_ns;
  stats_.swap_ns += plan_.swap_ns;
  stats_.draft_ns += plan_.draft_ns;
  return plan_.overhead_ns + plan_.swap_ns + plan_.draft_ns;
}

// Every decode in the step proposes k tokens and verifies them in one target pass: the
// pass computes k + 1 tokens over the sequence's context, which the cost model prices as
// a (k + 1)-token chunk with k + 1 rows through lm_head. How many are accepted follows the
// expected value exactly: each request accumulates E = (1 - a^(k+1)) / (1 - a) per step
// and emits the whole tokens of that credit (so over n steps, floor(n E) or so).
void Replica::speculate() {
  const SpeculativeConfig& spec = config_.speculative;
  const int k = spec.k;
  const std::size_t prompt_chunks = plan_.shape.prefills.size();  // verify chunks go after
  BatchShape draft_decodes;
  for (auto& c : plan_.chunks) {
    RequestState& r = *c.request;
    const bool decode = !r.in_prefill() && c.num_tokens == 1 && r.remaining() == 1 && r.spec.output_tokens > 0;
    if (!decode || k == 0) continue;
    // The proposed tokens need KV slots during the verify pass (vLLM allocates them).
    if (!kv_.allocate(r, 1 + k)) continue;  // no room: a plain decode this step
    r.spec_credit += expected_tokens_per_step(spec.acceptance_for(r.spec.class_index), k);
    const auto emitted = static_cast<std::int64_t>(std::floor(r.spec_credit));  // >= 1
    r.spec_credit -= static_cast<double>(emitted);
    const std::int64_t left_after_this = r.spec.output_tokens - r.num_output_done - 1;
    c.spec_accepted = std::clamp<std::int64_t>(emitted - 1, 0, left_after_this);
    // Reprice: one (k+1)-token verify chunk instead of a one-token decode.
    plan_.shape.decode_seqs -= 1;
    plan_.shape.decode_context_sum -= r.num_computed_tokens;
    plan_.shape.prefills.push_back(PrefillChunk{k + 1, r.num_computed_tokens, true});
    plan_.shape.extra_sampled_tokens += k;
    draft_decodes.decode_seqs += 1;
    draft_decodes.decode_context_sum += r.num_computed_tokens;
  }
  if (draft_decodes.decode_seqs > 0) plan_.spec_k = k;
  if (!draft_cost_model_) return;
  // The draft model runs the step's prompt chunks once (to build its own KV) and k
  // one-token passes over the speculating sequences.
  BatchShape draft_prompts;
  draft_prompts.prefills.assign(plan_.shape.prefills.begin(),
                                plan_.shape.prefills.begin() + static_cast<std::ptrdiff_t>(prompt_chunks));
  if (!draft_prompts.empty()) plan_.draft_ns += draft_cost_model_->step_cost(draft_prompts).total_ns;
  if (!draft_decodes.empty()) plan_.draft_ns += k * draft_cost_model_->step_cost(draft_decodes).total_ns;
}

void Replica::emit_accepted(RequestState& r, std::int64_t accepted) {
  // The accepted tokens were computed by the verify pass and arrive with the step's own
  // token: no time passes between them.
  const std::int64_t computed_before = r.num_computed_tokens;
  r.num_output_done += accepted;
  r.num_computed_tokens += accepted;
  // Blocks these tokens complete are cached like any other: source hashes here, private
  // ones with the rest of the step's (cache_private_blocks_at_step_start).
  kv_.cache_source_blocks_at_step_end(r, computed_before);
  measurements_.on_token_gaps(r.spec.class_index, 0, accepted);
  stats_.spec_accepted_tokens += accepted;
}

void Replica::note_recovery(RequestState& r, Tick now) {
  // Time lost to a preemption: from the preemption until the request has computed again as
  // many tokens as it had (recompute) or has its KV back (swap).
  if (r.preempted_at_ns < 0 || r.num_computed_tokens < r.recover_tokens) return;
  r.preempted_ns += now - r.preempted_at_ns;
  r.preempted_at_ns = -1;
  r.recover_tokens = 0;
}

void Replica::note_utilisation(const StepSplit& split) {
  const double scale = split.scale;
  stats_.prefill_time_ns += static_cast<double>(split.prefill_ns) * scale;
  stats_.decode_time_ns += static_cast<double>(split.decode_ns) * scale;
  stats_.prefill_flops += split.prefill_flops;
  stats_.decode_flops += split.decode_flops;
  stats_.prefill_bytes += split.prefill_bytes;
  stats_.decode_bytes += split.decode_bytes;
}

}  // namespace servesim
