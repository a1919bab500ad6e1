#pragma once
// How tensor, expert and pipeline parallelism cut a model: the shapes one GPU holds. The
// op graph, the weight count and the memory plan all read these, so they can never
// disagree.
#include <string>

#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct ShardShape {
  int layers = 0;             // layers of the (largest) pipeline stage: ceil(L / pp)
  // Of those, in the modelled (last) stage: layers whose MLP is routed experts, and
  // dense ones (DeepSeek's first layers fall in the first stage; Llama-4 Maverick's
  // stages hold as many dense as MoE layers, give or take one).
  int moe_layers = 0;
  int dense_layers = 0;
  int q_heads = 0;            // query heads per GPU: heads / tp
  // KV heads per GPU: kv_heads / tp, or 1 when tp > kv_heads (each GPU then keeps a copy
  // of the KV head its query heads share, as vLLM does).
  int kv_heads = 0;
  double intermediate = 0;    // dense MLP width per GPU: intermediate_size / tp
  double vocab = 0;           // vocabulary rows per GPU (vocab-parallel): vocab_size / tp
  double experts = 0;         // routed experts resident on one GPU: num_experts / ep
  double expert_intermediate = 0;  // width of each of those per GPU: moe_intermediate / (tp/ep)
  double shared_intermediate = 0;  // shared experts' width per GPU: shared x moe_intermediate / tp
  // Bytes per element of the routed and shared experts' weights (Deployment::expert_dtype;
  // bf16 in the unsplit shape, which counts parameters, not bytes).
  double expert_weight_bytes = 2.0;
};

// REQUIRES: deployment_problem(model, dep).empty().
ShardShape shard_shape(const ModelSpec& model, const Deployment& dep);
// The unsplit shape (tp = pp = ep = 1), without checks: parameter counts use it.
ShardShape whole_model_shape(const ModelSpec& model);

// Why this model cannot run with this deployment ("tp=3 does not divide the 32 attention
// heads"), or "" when it can. Callers at the input boundary turn a non-empty answer into a
// ConfigError; the op graph asserts it is empty.
std::string deployment_problem(const ModelSpec& model, const Deployment& dep);

// The deployment a speculative draft model runs with beside its target: the same tp, pp
// and formats, but expert parallelism only if the draft has experts too.
Deployment draft_deployment(const ModelSpec& draft, const Deployment& target);

// Parameters of one layer held by one GPU, split by which format they are stored in:
// the linear layers of attention and of dense MLPs (the weight format), the routed and
// shared experts (the expert format), and norms, biases and the MoE router (bf16).
struct LayerParams {
  double linear = 0;
  double experts = 0;
  double unquantised = 0;
};
// `moe_layer`: the layer's MLP is routed experts, of which `experts_counted` are counted
// (s.experts for the weights a GPU holds, experts_per_token for the active parameters).
LayerParams layer_params(const ModelSpec& model, const ShardShape& s, bool moe_layer,
                         double experts_counted);

// KV-cache elements one token adds per layer on one GPU: 2 x kv_heads x head_dim, or for
// MLA the kv_lora_rank + qk_rope_head_dim latent, which every TP GPU keeps whole (vLLM
// replicates the MLA cache across tensor-parallel ranks).
double kv_elements_per_token_layer(const ModelSpec& model, const ShardShape& s);

// Expected number of distinct experts, out of `experts`, that `tokens` tokens each
// choosing `top_k` of them uniformly touch: E * (1 - (1 - k/E)^T).
double expected_experts_touched(double experts, double top_k, double tokens);

// Bytes of weights on the busiest GPU: its stage's layers (linear layers in the weight
// format, experts in the expert format, norms and router in bf16) plus the vocabulary
// matrices it holds (bf16, split by tp).
double weight_bytes_per_gpu(const ModelSpec& model, const Deployment& dep);

}  // namespace servesim
