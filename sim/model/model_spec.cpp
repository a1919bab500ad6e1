#include "sim/model/model_spec.h"

namespace servesim {

namespace {

// Embedding tables, lm_head and norm weights stay in bf16 under weight quantisation:
// AWQ/GPTQ and vLLM's fp8 checkpoints quantise only the linear layers of the blocks.
constexpr double kUnquantisedBytes = 2.0;

// Weights of the linear layers of one block: fused QKV, O, and the MLP projections.
double linear_params_per_layer(const ModelSpec& m) {
  const double h = m.hidden_size;
  const double d = m.head_dim;
  const double qkv = h * (m.num_attention_heads + 2.0 * m.num_kv_heads) * d;
  const double o = m.num_attention_heads * d * h;
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * h * m.intermediate_size;
  return qkv + o + mlp;
}

// Everything that is not a linear layer of a block: two RMSNorm weights per layer, the
// final norm, the embedding table and (unless tied) lm_head.
double unquantised_params(const ModelSpec& m) {
  const double h = m.hidden_size;
  const double vocab_matrices = m.tied_embeddings ? 1.0 : 2.0;
  return m.num_layers * 2.0 * h + h + vocab_matrices * m.vocab_size * h;
}

}  // namespace

double ModelSpec::parameter_count() const {
  return num_layers * linear_params_per_layer(*this) + unquantised_params(*this);
}

double ModelSpec::weight_bytes(Dtype weights) const {
  return num_layers * linear_params_per_layer(*this) * bytes_per_element(weights) +
         unquantised_params(*this) * kUnquantisedBytes;
}

double ModelSpec::kv_bytes_per_token(Dtype kv) const {
  // K and V, each kv_heads x head_dim, in every layer.
  return 2.0 * num_layers * num_kv_heads * head_dim * bytes_per_element(kv);
}

}  // namespace servesim
