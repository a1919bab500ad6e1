#include "sim/model/shard.h"

#include "sim/core/assert.h"

namespace servesim {

// Builds text only on failure: shard_shape asserts on it once per engine step.
std::string deployment_problem(const ModelSpec& m, const Deployment& dep) {
  const auto tp = [&] { return "tp=" + std::to_string(dep.tp); };
  if (dep.tp < 1) return tp() + " must be at least 1";
  if (dep.pp < 1) return "pp=" + std::to_string(dep.pp) + " must be at least 1";
  if (m.num_layers < 1 || m.num_attention_heads < 1 || m.num_kv_heads < 1 || m.head_dim < 1 ||
      m.hidden_size < 1 || m.intermediate_size < 1 || m.vocab_size < 1) {
    return "model '" + m.name + "' has a non-positive dimension";
  }
  if (m.num_attention_heads % dep.tp != 0) {
    return tp() + " does not divide the " + std::to_string(m.num_attention_heads) +
           " attention heads of " + m.name;
  }
  // Fewer KV heads than GPUs works by replication, but only if each GPU's query heads
  // fall within one KV group.
  if (m.num_kv_heads >= dep.tp ? m.num_kv_heads % dep.tp != 0 : dep.tp % m.num_kv_heads != 0) {
    return tp() + " and the " + std::to_string(m.num_kv_heads) + " KV heads of " + m.name +
           " do not divide one another";
  }
  if (dep.pp > m.num_layers) {
    return "pp=" + std::to_string(dep.pp) + " exceeds the " + std::to_string(m.num_layers) +
           " layers of " + m.name;
  }
  return {};
}

ShardShape shard_shape(const ModelSpec& m, const Deployment& dep) {
  SS_ASSERT(deployment_problem(m, dep).empty(), "deployment must be checked at the input boundary");
  ShardShape s;
  s.layers = (m.num_layers + dep.pp - 1) / dep.pp;
  s.q_heads = m.num_attention_heads / dep.tp;
  s.kv_heads = m.num_kv_heads >= dep.tp ? m.num_kv_heads / dep.tp : 1;
  s.intermediate = static_cast<double>(m.intermediate_size) / dep.tp;
  s.vocab = static_cast<double>(m.vocab_size) / dep.tp;
  return s;
}

double weight_bytes_per_gpu(const ModelSpec& m, const Deployment& dep) {
  const ShardShape s = shard_shape(m, dep);
  const double h = m.hidden_size;
  const double d = m.head_dim;
  const double linear = h * (s.q_heads + 2.0 * s.kv_heads) * d + s.q_heads * d * h +
                        (m.gated_mlp ? 3.0 : 2.0) * h * s.intermediate;
  const double bf16 = 2.0;
  // Norm weights are replicated on every GPU of the stage.
  const double layer_bytes = linear * bytes_per_element(dep.weights) + 2.0 * h * bf16;
  // With one stage it holds the embedding and (unless tied) lm_head; with several, the
  // first stage holds the embedding and the last lm_head (a copy even when tied).
  const double vocab_matrices = dep.pp == 1 && !m.tied_embeddings ? 2.0 : 1.0;
  return s.layers * layer_bytes + vocab_matrices * s.vocab * h * bf16 + h * bf16;
}

}  // namespace servesim
