#pragma once
// What the replica adds to the step a policy planned (Replica::prepare_step), kept apart
// from the policy's StepPlan (scheduler.h) so that a policy's contract is only "fill the
// plan": the time the step takes beside the model's forward pass, and the counts its
// accounting needs. A step takes cost_model(plan.shape) + overhead_ns + swap_ns +
// draft_ns + kv_load_ns + lora_load_ns + lora_compute_ns (docs/engine.md).
#include <cstdint>

#include "sim/core/time.h"

namespace servesim {

struct StepAdditions {
  Tick overhead_ns = 0;                // engine CPU overheads (per step, request, token)
  Tick swap_ns = 0;                    // KV moved over the host link (plan.swap_out_tokens + swap_in_tokens)
  Tick draft_ns = 0;                   // speculative decoding: the draft model's passes
  Tick kv_load_ns = 0;                 // KV tiers: prefix blocks loaded back, evictions stored
  Tick lora_load_ns = 0;               // multi-LoRA: adapters copied into GPU slots (lora_slots.h)
  Tick lora_compute_ns = 0;            // multi-LoRA: the shrink and expand kernels (LoraLoadCost)
  std::int64_t swap_in_tokens = 0;     // KV tokens of swapped-out requests brought back
  int spec_k = 0;                      // tokens proposed per speculating decode (0: none)
  // The chunks that are decode work (is_decode_work, step_accounting.h), lazy decodes
  // included, and the new tokens of the others.
  std::int64_t decode_work_chunks = 0;
  std::int64_t prefill_work_tokens = 0;

  void clear() { *this = StepAdditions{}; }
};

}  // namespace servesim
