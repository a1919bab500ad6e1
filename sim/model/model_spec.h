#pragma once
// The architecture of a decoder-only transformer, as read from models/NAME.yaml or a
// Hugging Face config.json by the scenario layer: dense Llama-style blocks, optionally with
// QKV biases (Qwen2), mixture-of-experts MLPs (Mixtral, DeepSeek) and multi-head latent
// attention (DeepSeek-V2/V3).
#include <cstdint>
#include <string>

#include "sim/model/dtype.h"

namespace servesim {

struct ModelSpec {
  std::string name;
  std::string source;          // where the figures come from (model card, config.json URL)
  int num_layers = 0;
  int hidden_size = 0;
  int num_attention_heads = 0;
  int num_kv_heads = 0;        // == num_attention_heads without GQA
  int head_dim = 0;            // usually hidden_size / num_attention_heads
  int intermediate_size = 0;   // MLP inner width of the dense layers
  int vocab_size = 0;
  bool gated_mlp = true;       // SwiGLU: gate and up projections, then down
  bool tied_embeddings = false;
  bool attention_bias = false; // QKV projections carry a bias (Qwen2)
  std::int64_t max_context_tokens = 0;

  // Mixture of experts (num_experts == 0: every layer is dense). Each MoE layer holds
  // num_experts routed SwiGLU experts of width moe_intermediate_size, a router of
  // hidden x num_experts, and num_shared_experts experts of that same width every token
  // goes through. The first `first_dense_layers` layers (DeepSeek's first_k_dense_replace)
  // stay dense; of the rest, every moe_layer_step-th is MoE and the others dense (Llama-4
  // Maverick's interleave_moe_layer_step 2: layers 1, 3, 5, ... counting from 0). Dense
  // layers have an MLP of intermediate_size.
  int num_experts = 0;
  int experts_per_token = 0;   // top-k
  int moe_intermediate_size = 0;
  int num_shared_experts = 0;
  int first_dense_layers = 0;
  int moe_layer_step = 1;

  // Multi-head latent attention (kv_lora_rank == 0: ordinary multi/grouped-query
  // attention). The KV cache keeps, per token and layer, one compressed latent of
  // kv_lora_rank plus one shared rotary key of qk_rope_head_dim. Queries go through a
  // low-rank q_lora_rank bottleneck when q_lora_rank > 0 (V3), directly otherwise (V2-Lite).
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;

  // Chunked local attention (Llama-4; attention_chunk_size == 0: every layer attends to
  // the whole context). Layer i (0-based) is a NoPE layer with full attention when (i + 1)
  // is a multiple of no_rope_layer_interval; every other layer attends only within its
  // attention_chunk_size-token chunk (transformers' Llama4TextConfig no_rope_layers;
  // vLLM's Llama4Attention builds ChunkedLocalAttention for the RoPE layers).
  int attention_chunk_size = 0;
  int no_rope_layer_interval = 0;

  // A vision tower the engine loads beside the language model (0: none): parameters of
  // the encoder, its adapter and the projector into hidden_size, and the language-model
  // embeddings of the largest image the processor makes (what the engine's profile run
  // keeps per dummy image).
  double vision_params = 0;
  int vision_image_tokens = 0;

  bool is_moe() const { return num_experts > 0; }
  bool has_chunked_attention() const { return attention_chunk_size > 0; }
  bool has_vision() const { return vision_params > 0; }
  // Whether layer i attends only within its chunk (a RoPE layer of a chunked model).
  bool is_chunked_local_layer(int i) const {
    return has_chunked_attention() && (no_rope_layer_interval < 1 || (i + 1) % no_rope_layer_interval != 0);
  }
  bool is_mla() const { return kv_lora_rank > 0; }
  // Whether layer i (0-based) has a routed-expert MLP: i >= first_dense_layers and
  // (i - first_dense_layers + 1) is a multiple of moe_layer_step.
  bool is_moe_layer(int i) const {
    return is_moe() && moe_layer_step > 0 && i >= first_dense_layers &&
           (i - first_dense_layers + 1) % moe_layer_step == 0;
  }
  // How many of the layers [first, last) have a routed-expert MLP.
  int moe_layers_in(int first, int last) const;
  // Layers with a routed-expert MLP, of the whole model.
  int moe_layers() const { return moe_layers_in(0, num_layers); }

  // Parameters of the transformer layers, embeddings and lm_head (count, not bytes).
  double parameter_count() const;
  // Parameters one token goes through: routed experts count experts_per_token times
  // instead of num_experts (equals parameter_count() for a dense model).
  double active_parameter_count() const;
  // Bytes of all weights in the given format.
  double weight_bytes(Dtype weights) const { return weight_bytes(weights, weights); }
  // Bytes of all weights, the routed and shared experts in `experts`, the other linear
  // layers in `weights` (FP8-dynamic MoE checkpoints: fp8 experts, bf16 attention).
  double weight_bytes(Dtype weights, Dtype experts) const;
  // KV-cache bytes one token occupies over all layers, whole model, no TP split: K and V
  // of every KV head, or MLA's kv_lora_rank + qk_rope_head_dim latent.
  double kv_bytes_per_token(Dtype kv) const;
};

}  // namespace servesim
