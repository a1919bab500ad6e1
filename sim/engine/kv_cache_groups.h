#pragma once
// How vLLM's hybrid KV cache manager groups a model whose layers cache differently
// (Llama-4: full-attention NoPE layers beside chunked local layers), and the block count
// and logged token capacity that grouping gives (vllm/v1/core/kv_cache_utils.py).
#include <cstdint>
#include <string>

#include "sim/model/model_spec.h"

namespace servesim {

struct KvCacheGroups {
  int full_layers = 0;     // layers that cache the whole context
  int chunked_layers = 0;  // chunked local layers (ModelSpec::is_chunked_local_layer)
  int group_size = 0;      // layers per group, padding included
  int full_groups = 0;
  int chunked_groups = 0;
  // The most layers of one group on one pipeline stage: a stage's block tensors number
  // this many, each shared by one layer of every group.
  int stage_group_size = 0;
  int groups() const { return full_groups + chunked_groups; }
};

// _get_kv_cache_groups_uniform_page_size: the layers of each kind, in layer order, split
// into groups of group_size = the fewest layers of a kind (the most, when that is under
// 1.5 x the fewest); kind k's layers[i::n_k] form its i-th group, n_k = ceil(count /
// group_size). One kind: one group of every layer. `layers_per_stage` is the pipeline
// stage's ceil(num_layers / pp), stage s holding [s x that, (s + 1) x that).
KvCacheGroups vllm_kv_cache_groups(const ModelSpec& model, int layers_per_stage);

// get_kv_cache_config_from_groups / get_num_blocks: num_blocks = available // page_size //
// stage_group_size, page_size = block_size x the per-layer KV bytes of a token on one GPU.
std::int64_t vllm_num_blocks(const KvCacheGroups& g, double kv_bytes_per_gpu, double kv_bytes_per_token_layer,
                             int block_size);

// _report_kv_cache_config: "GPU KV cache size: N tokens", N = num_blocks // groups x
// block_size.
std::int64_t vllm_logged_kv_tokens(const KvCacheGroups& g, std::int64_t num_blocks, int block_size);

// get_max_concurrency_for_kv_cache_config: num_blocks over the blocks one request of
// max_model_len needs in every group: ceil(max_model_len / block_size) for a full group,
// ceil(min(attention_chunk_size + max_num_batched_tokens, max_model_len) / block_size) for
// a chunked one (ChunkedLocalAttentionSpec.max_memory_usage_bytes).
double vllm_max_concurrency(const KvCacheGroups& g, std::int64_t num_blocks, int block_size,
                            std::int64_t max_model_len, std::int64_t max_num_batched_tokens,
                            int attention_chunk_size);

// "48 layers in 4 groups of 12 (12 full attention in 1, 36 chunked local of 8192 tokens
// in 3)".
std::string describe(const KvCacheGroups& g, int attention_chunk_size);

}  // namespace servesim
