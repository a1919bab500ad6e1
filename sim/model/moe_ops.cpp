// The MLP half of a layer: dense SwiGLU (or GELU) layers and mixture-of-experts layers.
#include <algorithm>

#include "sim/model/op_parts.h"

namespace servesim::ops {

namespace {

// One expert GEMM over the tokens routed to this GPU's experts. With E experts split
// into `ep` groups and top-k routing spread evenly, a GPU computes M*k/ep token-expert
// rows; its weights are read once per distinct local expert the batch touches,
// E/ep * (1 - (1 - k/E)^M) of them (each expert is chosen by a token with probability
// k/E). `rows` is the average rows per expert, M*k/E: the M of each grouped GEMM.
// `weight_bytes`: bytes per element of the experts' weights (the expert format).
OpCost expert_gemm(const char* name, double assignments, double touched, double rows_per_expert,
                   double k_dim, double n_dim, const Dims& x, double weight_bytes, int count) {
  OpCost op{name, OpKind::gemm};
  op.flops = 2.0 * assignments * k_dim * n_dim * count;
  op.bytes_read = (touched * k_dim * n_dim * weight_bytes + assignments * k_dim * x.a) * count;
  op.bytes_written = assignments * n_dim * x.a * count;
  op.count = count;
  op.rows = rows_per_expert;
  return op;
}

void append_moe(const ModelSpec& m, const ShardShape& s, const Dims& x, double rows, int layers,
                StepOps& out) {
  const double E = m.num_experts;
  const double k = m.experts_per_token;
  // The router scores every expert for every token (replicated on each GPU, bf16).
  out.push_back(gemm("moe_router", rows, x.h, E, x, x.bf16, layers));
  const double assignments = rows * k / x.ep;
  // The step lasts as long as its busiest GPU: with experts spread over ep groups, a
  // small batch's few experts land on few GPUs, and each of those reads at least one
  // whole local expert even when the average over GPUs is a fraction of one.
  const double touched = std::max(expected_experts_touched(E, k, rows) / x.ep, rows > 0 ? 1.0 : 0.0);
  const double per_expert = rows * k / E;
  const double f = s.expert_intermediate;
  // Routed and shared experts are stored in the expert format (Deployment::expert_dtype).
  const double ew = s.expert_weight_bytes;
  out.push_back(expert_gemm("expert_gate_up", assignments, touched, per_expert, x.h, 2 * f, x, ew, layers));
  out.push_back(activation("expert_silu_mul", assignments, f, true, x, layers));
  out.push_back(expert_gemm("expert_down", assignments, touched, per_expert, f, x.h, x, ew, layers));
  // The top-k outputs of each token are weighted by their router scores and summed back
  // into one row (vLLM's fused_moe reads the inputs in place by sorted token ids, so only
  // this combine moves data outside the GEMMs).
  OpCost combine{"moe_combine", OpKind::elementwise};
  combine.flops = 2.0 * assignments * x.h * layers;
  combine.bytes_read = assignments * x.h * x.a * layers;
  combine.bytes_written = rows * x.h * x.a * layers;
  combine.count = layers;
  combine.rows = rows;
  out.push_back(combine);
  if (s.shared_intermediate > 0) {
    // Shared experts see every token: a dense SwiGLU MLP of shared x moe_intermediate.
    const double fs = s.shared_intermediate;
    out.push_back(gemm("shared_gate_up", rows, x.h, 2 * fs, x, ew, layers));
    out.push_back(activation("shared_silu_mul", rows, fs, true, x, layers));
    out.push_back(gemm("shared_down", rows, fs, x.h, x, ew, layers));
  }
}

}  // namespace

void append_mlp(const ModelSpec& model, const ShardShape& s, const Dims& x, double rows,
                StepOps& out) {
  const int dense = s.dense_layers;
  if (dense > 0) {
    if (model.gated_mlp) {
      out.push_back(gemm("gate_up_proj", rows, x.h, 2 * x.ffn, x, x.w, dense));
      out.push_back(activation("silu_mul", rows, x.ffn, true, x, dense));
    } else {
      out.push_back(gemm("up_proj", rows, x.h, x.ffn, x, x.w, dense));
      out.push_back(activation("gelu", rows, x.ffn, false, x, dense));
    }
    out.push_back(gemm("down_proj", rows, x.ffn, x.h, x, x.w, dense));
  }
  if (s.moe_layers > 0) append_moe(model, s, x, rows, s.moe_layers, out);
}

}  // namespace servesim::ops
