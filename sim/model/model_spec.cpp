#include "sim/model/model_spec.h"

#include "sim/model/shard.h"

namespace servesim {

namespace {

// Embedding tables, lm_head, norm weights, biases and the MoE router stay in bf16 under
// weight quantisation: AWQ/GPTQ and vLLM's fp8 checkpoints quantise only the linear
// layers of the blocks.
constexpr double kUnquantisedBytes = 2.0;

// Summed over all layers of the unsplit model, with `experts_counted` routed experts per
// MoE layer; plus the final norm, the embedding table and (unless tied) lm_head.
LayerParams model_params(const ModelSpec& m, double experts_counted) {
  const ShardShape s = whole_model_shape(m);
  const LayerParams dense = layer_params(m, s, false, 0);
  const LayerParams moe = m.is_moe() ? layer_params(m, s, true, experts_counted) : LayerParams{};
  LayerParams total;
  total.linear = s.dense_layers * dense.linear + s.moe_layers * moe.linear;
  total.unquantised = s.dense_layers * dense.unquantised + s.moe_layers * moe.unquantised;
  const double vocab_matrices = m.tied_embeddings ? 1.0 : 2.0;
  total.unquantised += m.hidden_size + vocab_matrices * m.vocab_size * static_cast<double>(m.hidden_size);
  return total;
}

}  // namespace

double ModelSpec::parameter_count() const {
  const LayerParams p = model_params(*this, num_experts);
  return p.linear + p.unquantised;
}

double ModelSpec::active_parameter_count() const {
  const LayerParams p = model_params(*this, experts_per_token);
  return p.linear + p.unquantised;
}

double ModelSpec::weight_bytes(Dtype weights) const {
  const LayerParams p = model_params(*this, num_experts);
  return p.linear * bytes_per_element(weights) + p.unquantised * kUnquantisedBytes;
}

double ModelSpec::kv_bytes_per_token(Dtype kv) const {
  return num_layers * kv_elements_per_token_layer(*this, whole_model_shape(*this)) *
         bytes_per_element(kv);
}

}  // namespace servesim
