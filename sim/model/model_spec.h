#pragma once
// The architecture of a dense decoder-only transformer (Llama family and alikes), as read
// from models/NAME.yaml or a Hugging Face config.json by the io layer.
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
  int intermediate_size = 0;   // MLP inner width
  int vocab_size = 0;
  bool gated_mlp = true;       // SwiGLU: gate and up projections, then down
  bool tied_embeddings = false;
  std::int64_t max_context_tokens = 0;

  // Parameters of the transformer layers, embeddings and lm_head (count, not bytes).
  double parameter_count() const;
  // Bytes of all weights in the given format.
  double weight_bytes(Dtype weights) const;
  // KV-cache bytes one token occupies over all layers (K and V), whole model, no TP split.
  double kv_bytes_per_token(Dtype kv) const;
};

}  // namespace servesim
