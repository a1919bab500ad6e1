#include "sim/model/shard.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

namespace {

// Checks of the model's own figures; loaders refuse these too, this guards hand-built specs.
std::string model_problem(const ModelSpec& m) {
  if (m.num_layers < 1 || m.num_attention_heads < 1 || m.num_kv_heads < 1 || m.head_dim < 1 ||
      m.hidden_size < 1 || m.intermediate_size < 1 || m.vocab_size < 1) {
    return "model '" + m.name + "' has a non-positive dimension";
  }
  if (m.is_moe() && (m.experts_per_token < 1 || m.experts_per_token > m.num_experts ||
                     m.moe_intermediate_size < 1 || m.num_shared_experts < 0 ||
                     m.first_dense_layers < 0 || m.first_dense_layers > m.num_layers ||
                     m.moe_layer_step < 1 || m.moe_layers() < 1)) {
    return "model '" + m.name + "' has inconsistent mixture-of-experts figures";
  }
  if (m.is_mla() && (m.qk_nope_head_dim < 1 || m.qk_rope_head_dim < 1 || m.v_head_dim < 1 ||
                     m.q_lora_rank < 0)) {
    return "model '" + m.name + "' has inconsistent latent-attention figures";
  }
  return {};
}

}  // namespace

// Builds text only on failure: shard_shape asserts on it once per engine step.
std::string deployment_problem(const ModelSpec& m, const Deployment& dep) {
  const auto tp = [&] { return "tp=" + std::to_string(dep.tp); };
  if (dep.tp < 1) return tp() + " must be at least 1";
  if (dep.pp < 1) return "pp=" + std::to_string(dep.pp) + " must be at least 1";
  if (dep.ep < 1) return "ep=" + std::to_string(dep.ep) + " must be at least 1";
  if (std::string problem = model_problem(m); !problem.empty()) return problem;
  if (m.num_attention_heads % dep.tp != 0) {
    return tp() + " does not divide the " + std::to_string(m.num_attention_heads) +
           " attention heads of " + m.name;
  }
  // Fewer KV heads than GPUs works by replication, but only if each GPU's query heads
  // fall within one KV group. (MLA has one shared latent: any tp that splits the heads.)
  if (!m.is_mla() &&
      (m.num_kv_heads >= dep.tp ? m.num_kv_heads % dep.tp != 0 : dep.tp % m.num_kv_heads != 0)) {
    return tp() + " and the " + std::to_string(m.num_kv_heads) + " KV heads of " + m.name +
           " do not divide one another";
  }
  if (dep.pp > m.num_layers) {
    return "pp=" + std::to_string(dep.pp) + " exceeds the " + std::to_string(m.num_layers) +
           " layers of " + m.name;
  }
  if (dep.expert_weights && !m.is_moe()) {
    return "expert weights in " + std::string(dtype_name(*dep.expert_weights)) +
           " need a mixture-of-experts model; " + m.name + " is dense";
  }
  if (dep.ep > 1) {
    const std::string ep = "ep=" + std::to_string(dep.ep);
    if (!m.is_moe()) return ep + " needs a mixture-of-experts model; " + m.name + " is dense";
    if (dep.tp % dep.ep != 0) return ep + " must divide " + tp() + " (experts split within a stage)";
    if (m.num_experts % dep.ep != 0) {
      return ep + " does not divide the " + std::to_string(m.num_experts) + " experts of " + m.name;
    }
  }
  return {};
}

Deployment draft_deployment(const ModelSpec& draft, const Deployment& target) {
  Deployment d = target;
  if (!draft.is_moe()) d.ep = 1;
  return d;
}

namespace {

// shard_shape without the check, which whole_model_shape skips (parameter counts ask it
// of models not yet checked).
ShardShape split_shape(const ModelSpec& m, const Deployment& dep) {
  ShardShape s;
  s.layers = (m.num_layers + dep.pp - 1) / dep.pp;
  // The modelled stage is the last: its Ls layers end the model. It holds DeepSeek's dense
  // first layers only when it reaches back into them, and with interleaved MoE (Llama-4
  // Maverick) whichever of its layers are not MoE.
  s.moe_layers = m.moe_layers_in(m.num_layers - s.layers, m.num_layers);
  s.dense_layers = s.layers - s.moe_layers;
  s.q_heads = m.num_attention_heads / dep.tp;
  s.kv_heads = m.num_kv_heads >= dep.tp ? m.num_kv_heads / dep.tp : 1;
  s.intermediate = static_cast<double>(m.intermediate_size) / dep.tp;
  s.vocab = static_cast<double>(m.vocab_size) / dep.tp;
  if (m.is_moe()) {
    s.experts = static_cast<double>(m.num_experts) / dep.ep;
    s.expert_intermediate = static_cast<double>(m.moe_intermediate_size) * dep.ep / dep.tp;
    s.shared_intermediate =
        static_cast<double>(m.num_shared_experts) * m.moe_intermediate_size / dep.tp;
    s.expert_weight_bytes = bytes_per_element(dep.expert_dtype());
  }
  return s;
}

}  // namespace

// The whole model is the shard of one GPU (tp = pp = ep = 1), its experts in bf16 so that
// expert_weight_bytes counts parameters.
ShardShape whole_model_shape(const ModelSpec& m) { return split_shape(m, Deployment{}); }

ShardShape shard_shape(const ModelSpec& m, const Deployment& dep) {
  SS_ASSERT(deployment_problem(m, dep).empty(), "deployment must be checked at the input boundary");
  return split_shape(m, dep);
}

LayerParams layer_params(const ModelSpec& m, const ShardShape& s, bool moe_layer,
                         double experts_counted) {
  const double h = m.hidden_size;
  LayerParams p;
  p.unquantised = 2.0 * h;  // input and post-attention RMSNorm weights
  if (m.is_mla()) {
    // Down-projections (q_a, kv_a) are replicated on every TP GPU, as in vLLM; the
    // up-projections and o_proj are split by heads.
    const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (m.q_lora_rank > 0) {
      p.linear += h * m.q_lora_rank + m.q_lora_rank * s.q_heads * qk;
      p.unquantised += m.q_lora_rank;  // q_a_layernorm
    } else {
      p.linear += h * s.q_heads * qk;
    }
    p.linear += h * (m.kv_lora_rank + m.qk_rope_head_dim);                        // kv_a_proj
    p.linear += m.kv_lora_rank * s.q_heads * (m.qk_nope_head_dim + m.v_head_dim);  // kv_b_proj
    p.linear += s.q_heads * m.v_head_dim * h;                                      // o_proj
    p.unquantised += m.kv_lora_rank;  // kv_a_layernorm
  } else {
    const double qkv_out = (s.q_heads + 2.0 * s.kv_heads) * m.head_dim;
    p.linear += h * qkv_out + s.q_heads * m.head_dim * h;
    if (m.attention_bias) p.unquantised += qkv_out;
  }
  if (moe_layer) {
    p.experts += experts_counted * 3.0 * h * s.expert_intermediate;  // routed SwiGLU experts
    p.experts += 3.0 * h * s.shared_intermediate;                    // shared experts
    p.unquantised += h * m.num_experts;  // router, replicated, kept in bf16
  } else {
    p.linear += (m.gated_mlp ? 3.0 : 2.0) * h * s.intermediate;
  }
  return p;
}

double kv_elements_per_token_layer(const ModelSpec& m, const ShardShape& s) {
  if (m.is_mla()) return static_cast<double>(m.kv_lora_rank) + m.qk_rope_head_dim;
  return 2.0 * s.kv_heads * m.head_dim;
}

double expected_experts_touched(double experts, double top_k, double tokens) {
  if (experts <= 0 || tokens <= 0) return 0;
  return experts * (1.0 - std::pow(1.0 - top_k / experts, tokens));
}

double weight_bytes_per_gpu(const ModelSpec& m, const Deployment& dep) {
  const ShardShape s = shard_shape(m, dep);
  const double w = bytes_per_element(dep.weights);
  const double bf16 = 2.0;
  const auto layer_bytes = [&](bool moe) {
    const LayerParams p = layer_params(m, s, moe, s.experts);
    return p.linear * w + p.experts * s.expert_weight_bytes + p.unquantised * bf16;
  };
  const double dense_bytes = layer_bytes(false);
  const double moe_bytes = m.is_moe() ? layer_bytes(true) : 0.0;
  // The busiest stage: stage i holds layers [i*Ls, min(L, (i+1)*Ls)), of which
  // ModelSpec::is_moe_layer says which are MoE (none in a dense model).
  double busiest = 0;
  for (int stage = 0; stage < dep.pp; ++stage) {
    const int first = stage * s.layers;
    const int last = std::min(m.num_layers, first + s.layers);
    if (first >= last) break;
    const int moe = m.moe_layers_in(first, last);
    busiest = std::max(busiest, (last - first - moe) * dense_bytes + moe * moe_bytes);
  }
  // With one stage it holds the embedding and (unless tied) lm_head; with several, the
  // first stage holds the embedding and the last lm_head (a copy even when tied).
  const double h = m.hidden_size;
  const double vocab_matrices = dep.pp == 1 && !m.tied_embeddings ? 2.0 : 1.0;
  return busiest + vocab_matrices * s.vocab * h * bf16 + h * bf16;
}

}  // namespace servesim
