#pragma once
// How a replica's device memory divides into weights, an activation reserve and KV cache.
#include <cstdint>
#include <string>

#include "sim/engine/engine_config.h"
#include "sim/hardware/hardware_spec.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct MemoryPlan {
  double weight_bytes_per_gpu = 0;      // vision tower included
  double vision_weight_bytes_per_gpu = 0;  // of which the vision tower (ModelSpec::vision_params)
  double activation_reserve_bytes_per_gpu = 0;
  // Of the reserve: the multimodal encoder's outputs that vLLM's profile run holds while
  // the text forward pass runs (0 without a vision tower or under other rules).
  double encoder_profile_bytes_per_gpu = 0;
  double kv_bytes_per_token_per_gpu = 0;
  double kv_bytes_per_gpu = 0;          // memory given to the KV cache on each GPU
  double fraction = 0;                  // the memory fraction the rule applied
  KvMemoryRule rule = KvMemoryRule::flat;
  std::int64_t kv_capacity_tokens = 0;  // whole replica, before rounding to blocks
  bool fits = false;                    // false: the weights alone exceed usable memory
  std::string explanation;              // the arithmetic, for error messages and reports
};

// The `flat` rule: usable = memory_bytes * gpu_memory_utilization; KV = usable -
// weights/GPU - (1 GiB + activations of max_batched_tokens).
MemoryPlan plan_memory(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                       double gpu_memory_utilization, std::int64_t max_batched_tokens);

// The engine's own rule (engine.kv_memory_rule; docs/engine.md, "KV capacity"):
//   flat    as above;
//   vllm    memory x utilisation - weights - peak of the profile run, the larger of the
//           forward pass over max_batched_tokens and the sampler's logits over
//           min(max_num_seqs, max_batched_tokens) rows, plus the dummy images' encoder
//           outputs of a vision model (vLLM V1 determine_available_memory); a model with
//           chunked local layers is grouped as the hybrid KV cache manager groups it and
//           kv_capacity_tokens is the token count vLLM logs (kv_cache_groups.h);
//   sglang  memory x mem_fraction_static - weights (profile_max_num_token); a utilisation
//           of 0 means SGLang's own default fraction (sglang_default_mem_fraction);
//   trtllm  free_gpu_memory_fraction x (memory - weights - forward peak over
//           max_batched_tokens) (KvCacheCreator._cal_max_memory).
MemoryPlan plan_memory(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                       const EngineConfig& engine);

// SGLang's default mem_fraction_static (ServerArgs._handle_gpu_memory_settings):
// (memory - reserved) / memory in MiB, rounded to 3 decimals, with reserved = 512 +
// max(chunk, 2048) x 1.5 + cuda_graph_max_bs x 2 + tp x pp / 8 x 1024, at least 10240 on
// GPUs of more than 60 GiB.
double sglang_default_mem_fraction(double memory_bytes, std::int64_t chunked_prefill_tokens,
                                   int cuda_graph_max_batch, int tp, int pp);

// "KV cache: N tokens (B blocks)", as vLLM logs it ("GPU KV cache size: N tokens").
std::string kv_cache_line(std::int64_t kv_blocks, int block_size);

}  // namespace servesim
