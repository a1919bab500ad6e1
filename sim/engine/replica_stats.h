#pragma once
// What one replica did over a run: steps, preemptions, busy time and its parts, and the
// work by phase (docs/engine.md, docs/metrics.md "Utilisation").
#include <cstdint>

#include "sim/core/time.h"
#include "sim/engine/step_accounting.h"

namespace servesim {

struct ReplicaStats {
  std::int64_t steps = 0;
  std::int64_t preemptions = 0;
  Tick busy_ns = 0;
  // Parts of busy_ns spent outside the target model's kernels (docs/engine.md).
  Tick overhead_ns = 0;   // engine CPU overheads
  Tick swap_ns = 0;       // KV swapped over the host link
  Tick kv_load_ns = 0;    // KV tiers: prefix blocks loaded back (and the stores they waited for)
  std::int64_t kv_loaded_tokens = 0;  // KV tiers: tokens loaded back to HBM
  std::int64_t kv_stored_tokens = 0;  // KV tiers: tokens written to them on eviction
  Tick draft_ns = 0;      // speculative decoding's draft passes
  Tick lora_load_ns = 0;  // multi-LoRA: adapters copied into GPU slots
  Tick lora_compute_ns = 0;  // multi-LoRA: the adapters' shrink and expand kernels
  std::int64_t lora_loads[2] = {0, 0};  // multi-LoRA: adapter loads from CPU memory, from disk
  // Multi-LoRA: requests whose adapter was in a GPU slot at the start of their first step
  // (hits), and those whose first step loaded it (misses, one load shared by the step's
  // requests of that adapter).
  std::int64_t lora_request_hits = 0, lora_request_misses = 0;
  std::int64_t spec_accepted_tokens = 0;  // extra tokens emitted by speculation
  std::int64_t lazy_decode_tokens = 0;    // decode tokens of lazy decodes (lazy_decodes.h)
  std::int64_t decode_runs = 0;           // quiet stretches run as one event (decode_run.cpp)
  std::int64_t decode_run_steps = 0;      // steps of those stretches
  std::int64_t decode_run_priced_steps = 0;  // steps priced for them (the rest were cut off)
  // Utilisation by phase (docs/metrics.md): step time split into prefill and decode parts
  // (StepSplit, overheads spread in proportion) and the work per GPU each part did.
  double prefill_time_ns = 0, decode_time_ns = 0;
  double prefill_flops = 0, decode_flops = 0, prefill_bytes = 0, decode_bytes = 0;
  // Step time of compute-bound and of memory-bound operators (StepCost): which one a run
  // is short of when it saturates (sim/cluster/saturation_verdict.h).
  Tick compute_bound_ns = 0, memory_bound_ns = 0;

  // One step's utilisation parts (its overheads spread in proportion: split.scale).
  void add_utilisation(const StepSplit& split) {
    prefill_time_ns += static_cast<double>(split.prefill_ns) * split.scale;
    decode_time_ns += static_cast<double>(split.decode_ns) * split.scale;
    prefill_flops += split.prefill_flops;
    decode_flops += split.decode_flops;
    prefill_bytes += split.prefill_bytes;
    decode_bytes += split.decode_bytes;
  }
  void add_bound_time(Tick compute_ns, Tick memory_ns) {
    compute_bound_ns += compute_ns;
    memory_bound_ns += memory_ns;
  }
};

}  // namespace servesim
