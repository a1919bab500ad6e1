#pragma once
// Builders of the operators step_ops() lists: internal to sim/model (op_graph.cpp,
// attention_ops.cpp, moe_ops.cpp). docs/cost-model.md section 1 has every formula.
#include <vector>

#include "sim/model/batch_shape.h"
#include "sim/model/model_spec.h"
#include "sim/model/op_graph.h"
#include "sim/model/shard.h"

namespace servesim::ops {

struct Dims {
  double h;    // hidden size
  double d;    // head dim
  double qh;   // query heads per GPU
  double kvh;  // KV heads per GPU
  double ffn;  // dense MLP width per GPU
  double vocab;
  double w;    // bytes per weight element of the linear layers
  double a;    // bytes per activation element
  double kv;   // bytes per KV-cache element
  double bf16;
  int layers;  // layers of the modelled stage
  int tp;
  int ep;
};

// Defined here, inline: step_ops runs once per engine step and these are its inner loop.

// 2*M*K*N FLOPs; reads K*N weights at `weight_bytes` each plus the M x K input, writes
// the M x N output; `count` launches (usually layers).
inline OpCost gemm(const char* name, double m, double k, double n, const Dims& x, double weight_bytes,
            int count) {
  OpCost op{name, OpKind::gemm};
  op.flops = 2.0 * m * k * n * count;
  op.bytes_read = (k * n * weight_bytes + m * k * x.a) * count;
  op.bytes_written = m * n * x.a * count;
  op.count = count;
  op.rows = m;
  op.gemm_n = n;
  op.gemm_k = k;
  return op;
}

// RMSNorm: square, sum, scale, multiply by the weight: about 4 FLOPs per element.
inline OpCost rms_norm(const char* name, double m, const Dims& x, int count) {
  OpCost op{name, OpKind::elementwise};
  op.flops = 4.0 * m * x.h * count;
  op.bytes_read = (m * x.h * x.a + x.h * x.bf16) * count;
  op.bytes_written = m * x.h * x.a * count;
  op.count = count;
  op.rows = m;
  return op;
}

inline OpCost residual_add(const char* name, double m, const Dims& x) {
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
inline OpCost all_reduce(const char* name, double m, const Dims& x) {
  OpCost op{name, OpKind::communication};
  op.comm_bytes = 2.0 * (x.tp - 1) / x.tp * m * x.h * x.a * x.layers;
  op.count = x.layers;
  return op;
}

inline OpCost activation(const char* name, double m, double width, bool gated, const Dims& x, int count) {
  OpCost op{name, OpKind::elementwise};
  if (gated) {
    // SiLU(gate) * up: reads both halves, writes one; ~4 FLOPs per output element.
    op.flops = 4.0 * m * width * count;
    op.bytes_read = 2.0 * m * width * x.a * count;
  } else {
    // GELU (tanh form): ~8 FLOPs per element.
    op.flops = 8.0 * m * width * count;
    op.bytes_read = m * width * x.a * count;
  }
  op.bytes_written = m * width * x.a * count;
  op.count = count;
  op.rows = m;
  return op;
}

// The stage's dimensions for this model and deployment (op_graph.cpp).
Dims make_dims(const ModelSpec& model, const Deployment& dep, const ShardShape& s);

// Decode attention's form for this model (ordinary or latent attention): with
// attention_decode, the decode attention kernel exactly as append_attention lists it.
AttnForm decode_attention_form(const ModelSpec& model, const Dims& x);
// Prefill attention's form for this model; with attention_prefill, as append_attention lists it.
AttnForm prefill_attention_form(const ModelSpec& model, const Dims& x);
// Attention: QKV (or MLA's projections), the attention kernels and o_proj, appended to `out`.
void append_attention(const ModelSpec& model, const BatchShape& batch, const Dims& x,
                      double rows, StepOps& out);
// The MLP of the stage's layers: dense SwiGLU/GELU layers and routed-expert layers.
void append_mlp(const ModelSpec& model, const ShardShape& s, const Dims& x, double rows,
                StepOps& out);

}  // namespace servesim::ops
