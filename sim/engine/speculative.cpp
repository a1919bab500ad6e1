#include "sim/engine/speculative.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

double expected_tokens_per_step(double alpha, int k) {
  SS_ASSERT(alpha >= 0 && alpha <= 1 && k >= 0, "speculative parameters out of range");
  if (alpha >= 1) return k + 1.0;
  return (1.0 - std::pow(alpha, k + 1)) / (1.0 - alpha);
}

const EngineConfig& SpeculativeDecoding::scheduling_config(const EngineConfig& config,
                                                           const std::vector<RequestState*>& running) {
  const SpeculativeConfig& spec = config.speculative;
  if (!step_config_) step_config_ = std::make_unique<EngineConfig>(config);
  // Reserve the proposed tokens for the running decodes, but never so much that the
  // decodes themselves are left out.
  const auto decodes = static_cast<std::int64_t>(
      std::count_if(running.begin(), running.end(), [](const RequestState* r) { return !r->in_prefill(); }));
  step_config_->max_batched_tokens = std::max(decodes, config.max_batched_tokens - spec.k * decodes);
  step_config_->max_batched_tokens = std::max<std::int64_t>(step_config_->max_batched_tokens, 1);
  return *step_config_;
}

// How many are accepted follows the expected value exactly: each request accumulates
// E = (1 - a^(k+1)) / (1 - a) per step and emits the whole tokens of that credit (so over
// n steps, floor(n E) or so).
void SpeculativeDecoding::speculate(const EngineConfig& config, StepPlan& plan, StepAdditions& added,
                                    KvCacheManager& kv) const {
  const SpeculativeConfig& spec = config.speculative;
  const int k = spec.k;
  const std::size_t prompt_chunks = plan.shape.prefills.size();  // verify chunks go after
  BatchShape draft_decodes;
  for (auto& c : plan.chunks) {
    RequestState& r = *c.request;
    const bool decode = !r.in_prefill() && c.num_tokens == 1 && r.remaining() == 1 && r.spec.output_tokens > 0;
    if (!decode || k == 0) continue;
    // The proposed tokens need KV slots during the verify pass (vLLM allocates them).
    if (!kv.allocate(r, 1 + k)) continue;  // no room: a plain decode this step
    r.spec_credit += expected_tokens_per_step(spec.acceptance_for(r.spec.class_index), k);
    const auto emitted = static_cast<std::int64_t>(std::floor(r.spec_credit));  // >= 1
    r.spec_credit -= static_cast<double>(emitted);
    const std::int64_t left_after_this = r.spec.output_tokens - r.num_output_done - 1;
    c.spec_accepted = std::clamp<std::int64_t>(emitted - 1, 0, left_after_this);
    // Reprice: one (k+1)-token verify chunk instead of a one-token decode.
    plan.shape.decode_seqs -= 1;
    plan.shape.decode_context_sum -= r.num_computed_tokens;
    plan.shape.prefills.push_back(PrefillChunk{k + 1, r.num_computed_tokens, true});
    plan.shape.extra_sampled_tokens += k;
    draft_decodes.decode_seqs += 1;
    draft_decodes.decode_context_sum += r.num_computed_tokens;
  }
  if (draft_decodes.decode_seqs > 0) added.spec_k = k;
  if (!draft_cost_model_) return;
  // The draft model runs the step's prompt chunks once (to build its own KV) and k
  // one-token passes over the speculating sequences.
  BatchShape draft_prompts;
  draft_prompts.prefills.assign(plan.shape.prefills.begin(),
                                plan.shape.prefills.begin() + static_cast<std::ptrdiff_t>(prompt_chunks));
  if (!draft_prompts.empty()) added.draft_ns += draft_cost_model_->step_cost(draft_prompts).total_ns;
  if (!draft_decodes.empty()) added.draft_ns += k * draft_cost_model_->step_cost(draft_decodes).total_ns;
}

}  // namespace servesim
