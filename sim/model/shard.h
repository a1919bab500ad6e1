#pragma once
// How tensor and pipeline parallelism cut a model: the shapes one GPU holds. The op graph,
// the weight count and the memory plan all read these, so they can never disagree.
#include <string>

#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct ShardShape {
  int layers = 0;             // layers of the (largest) pipeline stage: ceil(L / pp)
  int q_heads = 0;            // query heads per GPU: heads / tp
  // KV heads per GPU: kv_heads / tp, or 1 when tp > kv_heads (each GPU then keeps a copy
  // of the KV head its query heads share, as vLLM does).
  int kv_heads = 0;
  double intermediate = 0;    // MLP width per GPU: intermediate_size / tp
  double vocab = 0;           // vocabulary rows per GPU (vocab-parallel): vocab_size / tp
};

// REQUIRES: deployment_problem(model, dep).empty().
ShardShape shard_shape(const ModelSpec& model, const Deployment& dep);

// Why this model cannot run with this deployment ("tp=3 does not divide the 32 attention
// heads"), or "" when it can. Callers at the input boundary turn a non-empty answer into a
// ConfigError; the op graph asserts it is empty.
std::string deployment_problem(const ModelSpec& model, const Deployment& dep);

// Bytes of weights on the busiest GPU: its stage's layers (linear layers in the weight
// format, norms in bf16) plus the vocabulary matrices it holds (bf16, split by tp).
double weight_bytes_per_gpu(const ModelSpec& model, const Deployment& dep);

}  // namespace servesim
