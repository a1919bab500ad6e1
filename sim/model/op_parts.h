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

// 2*M*K*N FLOPs; reads K*N weights at `weight_bytes` each plus the M x K input, writes
// the M x N output; `count` launches (usually layers).
OpCost gemm(const char* name, double m, double k, double n, const Dims& x, double weight_bytes,
            int count);
OpCost rms_norm(const char* name, double m, const Dims& x, int count);
OpCost residual_add(const char* name, double m, const Dims& x);
OpCost all_reduce(const char* name, double m, const Dims& x);
// SiLU(gate) * up over an M x width input pair (gated) or GELU over M x width.
OpCost activation(const char* name, double m, double width, bool gated, const Dims& x, int count);

// Attention: QKV (or MLA's projections), the attention kernels and o_proj, appended to `out`.
void append_attention(const ModelSpec& model, const BatchShape& batch, const Dims& x,
                      double rows, std::vector<OpCost>& out);
// The MLP of the stage's layers: dense SwiGLU/GELU layers and routed-expert layers.
void append_mlp(const ModelSpec& model, const ShardShape& s, const Dims& x, double rows,
                std::vector<OpCost>& out);

}  // namespace servesim::ops
