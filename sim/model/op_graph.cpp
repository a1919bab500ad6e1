#include "sim/model/op_graph.h"

#include "sim/model/op_parts.h"

// Conventions (docs/cost-model.md has the derivations):
// - M rows go through every per-token op: all prefill tokens plus one per decode sequence.
// - A GEMM of M x K times K x N costs 2*M*K*N FLOPs and moves its K x N weights (in the
//   weight format) plus its M x K input and M x N output activations.
// - Every figure is per GPU of the modelled stage and already summed over its layers;
//   `count` says how many kernel launches the figure stands for.
// - The modelled stage is the last one: it runs lm_head, so it is the slowest. With one
//   stage it also runs the embedding; with several it instead receives the previous stage's
//   activations ("pp_transfer").

namespace servesim {

namespace ops {

Dims make_dims(const ModelSpec& model, const Deployment& dep, const ShardShape& s) {
  Dims x;
  x.h = model.hidden_size;
  x.d = model.head_dim;
  x.qh = s.q_heads;
  x.kvh = s.kv_heads;
  x.ffn = s.intermediate;
  x.vocab = s.vocab;
  x.w = bytes_per_element(dep.weights);
  x.a = bytes_per_element(dep.activations);
  x.kv = bytes_per_element(dep.kv);
  x.bf16 = 2.0;
  x.layers = s.layers;
  x.tp = dep.tp;
  x.ep = dep.ep;
  return x;
}

}  // namespace ops


void step_ops_into(const ModelSpec& model, const Deployment& dep, const BatchShape& batch,
                   StepOps& out) {
  const ShardShape s = shard_shape(model, dep);
  const ops::Dims x = ops::make_dims(model, dep, s);

  const double m = static_cast<double>(batch.total_tokens());
  const double sampled = sampled_rows(batch);
  const int L = s.layers;

  out.clear();
  if (dep.pp == 1) {
    OpCost embed{"embedding", OpKind::elementwise};
    embed.bytes_read = m * x.h * x.bf16;  // one table row per token
    embed.bytes_written = m * x.h * x.a;
    embed.rows = m;
    out.push_back(embed);
  } else {
    OpCost recv{"pp_transfer", OpKind::communication};
    recv.comm_bytes = m * x.h * x.a;
    out.push_back(recv);
  }
  out.push_back(ops::rms_norm("input_norm", m, x, L));
  ops::append_attention(model, batch, x, m, out);
  if (dep.tp > 1) out.push_back(ops::all_reduce("attn_all_reduce", m, x));
  out.push_back(ops::residual_add("attn_residual_add", m, x));
  out.push_back(ops::rms_norm("post_attn_norm", m, x, L));
  ops::append_mlp(model, s, x, m, out);
  if (dep.tp > 1) out.push_back(ops::all_reduce("mlp_all_reduce", m, x));
  out.push_back(ops::residual_add("mlp_residual_add", m, x));
  if (sampled > 0) {
    // Only the rows that produce a token reach the final norm and lm_head.
    out.push_back(ops::rms_norm("final_norm", sampled, x, 1));
    out.push_back(ops::gemm("lm_head", sampled, x.h, x.vocab, x, x.bf16, 1));
  }
}

std::vector<OpCost> step_ops(const ModelSpec& model, const Deployment& dep,
                             const BatchShape& batch) {
  StepOps ops;
  step_ops_into(model, dep, batch, ops);
  return {ops.begin(), ops.end()};
}

AttentionKernels::AttentionKernels(const ModelSpec& model, const Deployment& dep)
    : dims_(std::make_unique<ops::Dims>(ops::make_dims(model, dep, shard_shape(model, dep)))),
      prefill_form_(ops::prefill_attention_form(model, *dims_)),
      decode_form_(ops::decode_attention_form(model, *dims_)),
      layers_(dims_->layers) {}

AttentionKernels::~AttentionKernels() = default;

}  // namespace servesim
