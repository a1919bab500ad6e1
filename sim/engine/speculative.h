#pragma once
// Speculative decoding in a replica (docs/engine.md, "Speculative decoding"). The
// arithmetic follows Leviathan, Kalman & Matias, "Fast Inference from Transformers via
// Speculative Decoding", ICML 2023, eq. 1: with k proposed tokens, each accepted with
// probability alpha independently, a verify step emits the accepted prefix plus one token
// from the target model, in expectation (1 - alpha^(k+1)) / (1 - alpha).
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/engine/engine_config.h"
#include "sim/engine/kv_cache_manager.h"
#include "sim/engine/request_state.h"
#include "sim/engine/scheduler.h"
#include "sim/engine/step_additions.h"
#include "sim/hardware/cost_model.h"

namespace servesim {

// Expected tokens one verify step emits per sequence; k + 1 when alpha = 1, 1 when
// alpha = 0. REQUIRES: 0 <= alpha <= 1, k >= 0.
double expected_tokens_per_step(double alpha, int k);

// One replica's speculation: the budget its scheduler sees, and each step's proposals,
// acceptances and draft passes. Used only where config.speculative.enabled.
class SpeculativeDecoding {
 public:
  // With a draft model its proposal passes cost its price; without one they are free
  // (n-gram lookup).
  void set_draft_cost_model(std::shared_ptr<const CostModel> draft) { draft_cost_model_ = std::move(draft); }
  // The config the scheduler sees: vLLM counts the proposed tokens against the step's
  // budget, so the budget leaves room for the verify tokens of the running decodes.
  const EngineConfig& scheduling_config(const EngineConfig& config, const std::vector<RequestState*>& running);
  // After scheduling: every decode of `plan` proposes k tokens and verifies them in one
  // target pass (repriced as a (k+1)-token chunk), accepting the whole tokens of its
  // expected-value credit (ScheduledChunk::spec_accepted); the draft passes' time goes to
  // added.draft_ns.
  void speculate(const EngineConfig& config, StepPlan& plan, StepAdditions& added, KvCacheManager& kv) const;

 private:
  // Behind a pointer, as it is cold and as large as the rest of the replica
  // (Replica::warm_step_end prefetches the whole replica).
  std::unique_ptr<EngineConfig> step_config_;
  std::shared_ptr<const CostModel> draft_cost_model_;
};

}  // namespace servesim
