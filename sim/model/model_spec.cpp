#include "sim/model/model_spec.h"

#include <algorithm>

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
  total.experts = s.moe_layers * moe.experts;
  total.unquantised = s.dense_layers * dense.unquantised + s.moe_layers * moe.unquantised;
  const double vocab_matrices = m.tied_embeddings ? 1.0 : 2.0;
  total.unquantised += m.hidden_size + vocab_matrices * m.vocab_size * static_cast<double>(m.hidden_size);
  return total;
}

}  // namespace

int ModelSpec::moe_layers_in(int first, int last) const {
  if (!is_moe() || moe_layer_step < 1) return 0;
  // Layer i is MoE when t = i - first_dense_layers >= 0 and (t + 1) % step == 0; of
  // t in [a, b) there are floor(b / step) - floor(a / step) such.
  const int a = std::max(first, first_dense_layers) - first_dense_layers;
  const int b = std::min(last, num_layers) - first_dense_layers;
  if (b <= a) return 0;
  return b / moe_layer_step - a / moe_layer_step;
}

double ModelSpec::parameter_count() const {
  const LayerParams p = model_params(*this, num_experts);
  return p.linear + p.experts + p.unquantised;
}

double ModelSpec::active_parameter_count() const {
  const LayerParams p = model_params(*this, experts_per_token);
  return p.linear + p.experts + p.unquantised;
}

double ModelSpec::weight_bytes(Dtype weights, Dtype experts) const {
  const LayerParams p = model_params(*this, num_experts);
  return p.linear * bytes_per_element(weights) + p.experts * bytes_per_element(experts) +
         p.unquantised * kUnquantisedBytes;
}

double ModelSpec::kv_bytes_per_token(Dtype kv) const {
  return num_layers * kv_elements_per_token_layer(*this, whole_model_shape(*this)) *
         bytes_per_element(kv);
}

}  // namespace servesim
