#include "sim/model/op_graph.h"

#include "sim/model/shard.h"

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

namespace {

struct Dims {
  double h;    // hidden size
  double d;    // head dim
  double qh;   // query heads per GPU
  double kvh;  // KV heads per GPU
  double ffn;  // MLP width per GPU
  double vocab;
  double w;    // bytes per weight element of the linear layers
  double a;    // bytes per activation element
  double kv;   // bytes per KV-cache element
  double bf16;
  int layers;
  int tp;
};

OpCost gemm(const char* name, double m, double k, double n, const Dims& x, double weight_bytes,
            int count) {
  OpCost op{name, OpKind::gemm};
  op.flops = 2.0 * m * k * n * count;
  op.bytes_read = (k * n * weight_bytes + m * k * x.a) * count;
  op.bytes_written = m * n * x.a * count;
  op.count = count;
  op.rows = m;
  return op;
}

// RMSNorm: square, sum, scale, multiply by the weight: about 4 FLOPs per element.
OpCost rms_norm(const char* name, double m, const Dims& x, int count) {
  OpCost op{name, OpKind::elementwise};
  op.flops = 4.0 * m * x.h * count;
  op.bytes_read = (m * x.h * x.a + x.h * x.bf16) * count;
  op.bytes_written = m * x.h * x.a * count;
  op.count = count;
  op.rows = m;
  return op;
}

OpCost residual_add(const char* name, double m, const Dims& x) {
  OpCost op{name, OpKind::elementwise};
  op.flops = m * x.h * x.layers;
  op.bytes_read = 2.0 * m * x.h * x.a * x.layers;
  op.bytes_written = m * x.h * x.a * x.layers;
  op.count = x.layers;
  op.rows = m;
  return op;
}

// Ring all-reduce of the M x hidden activations: each GPU sends (and receives)
// 2 * (tp - 1) / tp of the buffer.
OpCost all_reduce(const char* name, double m, const Dims& x) {
  OpCost op{name, OpKind::communication};
  op.comm_bytes = 2.0 * (x.tp - 1) / x.tp * m * x.h * x.a * x.layers;
  op.count = x.layers;
  return op;
}

// Prefill chunks: each of the n new tokens attends to the p cached tokens and causally to
// the new ones before it and itself: n*p + n*(n+1)/2 query-key pairs. Each pair costs
// 2*d FLOPs in QK^T and 2*d in PV, per query head. Memory: the KV of p+n tokens is read,
// the n new tokens' KV written, Q read and the output written.
OpCost attention_prefill(const BatchShape& batch, const Dims& x) {
  double pairs = 0;
  double tokens_read = 0;
  double new_tokens = 0;
  for (const PrefillChunk& c : batch.prefills) {
    const double n = static_cast<double>(c.new_tokens);
    const double p = static_cast<double>(c.past_tokens);
    pairs += n * p + n * (n + 1) / 2;
    tokens_read += p + n;
    new_tokens += n;
  }
  const double kv_per_token = 2.0 * x.kvh * x.d * x.kv;  // one layer, this GPU
  const double q_or_out = x.qh * x.d * x.a;              // one token's Q (or output)
  OpCost op{"attn_prefill", OpKind::attention};
  op.flops = 4.0 * x.d * x.qh * pairs * x.layers;
  op.bytes_read = (kv_per_token * tokens_read + q_or_out * new_tokens) * x.layers;
  op.bytes_written = (kv_per_token * new_tokens + q_or_out * new_tokens) * x.layers;
  op.count = x.layers;
  op.rows = new_tokens;
  op.per_key_flops = 4.0 * x.d * x.qh * new_tokens * x.layers;
  return op;
}

// Decode: each sequence's new token attends to its whole context plus itself, so the step
// reads the KV of (context_sum + seqs) tokens: one read of each KV head serves the query
// heads of its group (GQA).
OpCost attention_decode(const BatchShape& batch, const Dims& x) {
  const double seqs = static_cast<double>(batch.decode_seqs);
  const double keys = static_cast<double>(batch.decode_context_sum) + seqs;
  const double kv_per_token = 2.0 * x.kvh * x.d * x.kv;
  const double q_or_out = x.qh * x.d * x.a;
  OpCost op{"attn_decode", OpKind::attention};
  op.flops = 4.0 * x.d * x.qh * keys * x.layers;
  op.bytes_read = (kv_per_token * keys + q_or_out * seqs) * x.layers;
  op.bytes_written = (kv_per_token * seqs + q_or_out * seqs) * x.layers;
  op.count = x.layers;
  op.rows = seqs;
  op.per_key_flops = 4.0 * x.d * x.qh * seqs * x.layers;
  return op;
}

}  // namespace

std::vector<OpCost> step_ops(const ModelSpec& model, const Deployment& dep,
                             const BatchShape& batch) {
  const ShardShape s = shard_shape(model, dep);
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

  const double m = static_cast<double>(batch.total_tokens());
  double sampled = static_cast<double>(batch.decode_seqs);
  for (const PrefillChunk& c : batch.prefills) sampled += c.sampled ? 1.0 : 0.0;
  sampled += static_cast<double>(batch.extra_sampled_tokens);  // speculative verify rows
  const int L = s.layers;

  std::vector<OpCost> ops;
  ops.reserve(20);
  if (dep.pp == 1) {
    OpCost embed{"embedding", OpKind::elementwise};
    embed.bytes_read = m * x.h * x.bf16;  // one table row per token
    embed.bytes_written = m * x.h * x.a;
    embed.rows = m;
    ops.push_back(embed);
  } else {
    OpCost recv{"pp_transfer", OpKind::communication};
    recv.comm_bytes = m * x.h * x.a;
    ops.push_back(recv);
  }
  ops.push_back(rms_norm("input_norm", m, x, L));
  ops.push_back(gemm("qkv_proj", m, x.h, (x.qh + 2 * x.kvh) * x.d, x, x.w, L));
  if (!batch.prefills.empty()) ops.push_back(attention_prefill(batch, x));
  if (batch.decode_seqs > 0) ops.push_back(attention_decode(batch, x));
  ops.push_back(gemm("o_proj", m, x.qh * x.d, x.h, x, x.w, L));
  if (dep.tp > 1) ops.push_back(all_reduce("attn_all_reduce", m, x));
  ops.push_back(residual_add("attn_residual_add", m, x));
  ops.push_back(rms_norm("post_attn_norm", m, x, L));
  if (model.gated_mlp) {
    ops.push_back(gemm("gate_up_proj", m, x.h, 2 * x.ffn, x, x.w, L));
    // SiLU(gate) * up: reads both halves, writes one; ~4 FLOPs per output element.
    OpCost act{"silu_mul", OpKind::elementwise};
    act.flops = 4.0 * m * x.ffn * L;
    act.bytes_read = 2.0 * m * x.ffn * x.a * L;
    act.bytes_written = m * x.ffn * x.a * L;
    act.count = L;
    act.rows = m;
    ops.push_back(act);
  } else {
    ops.push_back(gemm("up_proj", m, x.h, x.ffn, x, x.w, L));
    // GELU (tanh form): ~8 FLOPs per element.
    OpCost act{"gelu", OpKind::elementwise};
    act.flops = 8.0 * m * x.ffn * L;
    act.bytes_read = m * x.ffn * x.a * L;
    act.bytes_written = m * x.ffn * x.a * L;
    act.count = L;
    act.rows = m;
    ops.push_back(act);
  }
  ops.push_back(gemm("down_proj", m, x.ffn, x.h, x, x.w, L));
  if (dep.tp > 1) ops.push_back(all_reduce("mlp_all_reduce", m, x));
  ops.push_back(residual_add("mlp_residual_add", m, x));
  if (sampled > 0) {
    // Only the rows that produce a token reach the final norm and lm_head.
    ops.push_back(rms_norm("final_norm", sampled, x, 1));
    ops.push_back(gemm("lm_head", sampled, x.h, x.vocab, x, x.bf16, 1));
  }
  return ops;
}

}  // namespace servesim
