#pragma once
// Operator-level FLOPs and bytes of one engine step, per GPU of one pipeline stage,
// summed over that stage's layers. This is the single place that knows the transformer's
// arithmetic; every cost model that needs FLOPs or bytes reads them from here.
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/assert.h"

#include "sim/model/batch_shape.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

enum class OpKind { gemm, attention, elementwise, communication };

struct OpCost {
  const char* name;      // static string: "qkv_proj", "attn_prefill", "all_reduce", ...
  OpKind kind;
  double flops = 0;          // per GPU
  double bytes_read = 0;     // per GPU, from device memory
  double bytes_written = 0;  // per GPU, to device memory
  double comm_bytes = 0;     // per GPU, over the interconnect (communication ops)
  int count = 1;             // how many kernel launches this op stands for (layers x ...)
  // Shape facts some cost models need beyond FLOPs and bytes:
  double rows = 0;           // rows of one launch: GEMM M, attention query rows (tokens or
                             // decode sequences), elementwise rows
  double per_key_flops = 0;  // attention: FLOPs one more key per query row would add
                             // (4 * head_dim * heads * rows * layers)
  double per_key_bytes = 0;  // decode attention: KV bytes one more key per sequence would add
  double gemm_n = 0;         // GEMM: output features per GPU (N of M x K times K x N)
  double gemm_k = 0;         // GEMM: input features per GPU (K)
};

// The operators of one step in a fixed array: a cost model lists them once per engine
// step, and a vector would cost a heap allocation each time (docs/performance.md).
class StepOps {
 public:
  // The longest list (MLA attention, dense and MoE layers with shared experts, tp > 1 and
  // both prefill and decode attention) has 26 operators.
  static constexpr std::size_t kCapacity = 32;
  void push_back(const OpCost& op) {
    SS_ASSERT(size_ < kCapacity, "more operators in a step than StepOps::kCapacity");
    items_[size_++] = op;
  }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  const OpCost* begin() const { return items_.data(); }
  const OpCost* end() const { return items_.data() + size_; }
  std::span<const OpCost> view() const { return {items_.data(), size_}; }

 private:
  std::array<OpCost, kCapacity> items_{};
  std::size_t size_ = 0;
};

// The operators of one step for one GPU, replacing the contents of `out`.
// REQUIRES: deployment.tp divides the heads.
void step_ops_into(const ModelSpec& model, const Deployment& deployment, const BatchShape& batch,
                   StepOps& out);
// Rows that reach the final norm and lm_head: one per decode sequence, per prompt chunk
// that ends its prompt, and per speculative verify row.
inline double sampled_rows(const BatchShape& batch) {
  double sampled = static_cast<double>(batch.decode_seqs);
  for (const PrefillChunk& c : batch.prefills) sampled += c.sampled ? 1.0 : 0.0;
  return sampled + static_cast<double>(batch.extra_sampled_tokens);  // speculative verify rows
}

// The attention kernels of a step, exactly as step_ops lists them. Outside MLA they are
// the only operators that depend on more than the step's token count and sampled rows
// (decode attention on the context sum, prefill attention on each chunk's cached tokens),
// which lets a cost model cache the others (roofline.h). Decode attention is inline, as
// a decode run prices it every step.
namespace ops {
struct Dims;
// What one query-key pair and one token cost in one layer on this GPU.
struct AttnForm {
  double pair_flops;          // FLOPs of one query row against one key, all local heads
  double kv_read_per_token;   // bytes of K/V read per key token
  double kv_write_per_token;  // bytes of KV cache written per new token
  double q_per_row;           // bytes of the query read per row
  double out_per_row;         // bytes of the output written per row
};

// The attention kernel of `rows` new query rows over `pairs` query-key pairs in each of
// `layers` layers: it reads the K/V of `keys_read` tokens and each row's query, and writes
// each row's KV and output.
inline OpCost attention_op(const char* name, const AttnForm& f, double pairs, double keys_read, double rows,
                           int layers) {
  OpCost op{name, OpKind::attention};
  op.flops = f.pair_flops * pairs * layers;
  op.bytes_read = (f.kv_read_per_token * keys_read + f.q_per_row * rows) * layers;
  op.bytes_written = (f.kv_write_per_token * rows + f.out_per_row * rows) * layers;
  op.count = layers;
  op.rows = rows;
  op.per_key_flops = f.pair_flops * rows * layers;
  return op;
}

// Decode: each sequence's new token attends to its whole context plus itself, so the step
// reads the KV of (context_sum + seqs) tokens: one read of each KV head serves the query
// heads of its group (GQA), one read of MLA's latent serves every head.
inline OpCost attention_decode(std::int64_t decode_seqs, std::int64_t context_sum, const AttnForm& f, int layers) {
  const double seqs = static_cast<double>(decode_seqs);
  const double keys = static_cast<double>(context_sum) + seqs;
  OpCost op = attention_op("attn_decode", f, /*pairs=*/keys, /*keys_read=*/keys, /*rows=*/seqs, layers);
  op.per_key_bytes = f.kv_read_per_token * seqs * layers;
  return op;
}
// Prefill chunks: each of the n new tokens attends to the p cached tokens and causally to
// the new ones before it and itself.
OpCost attention_prefill(const BatchShape& batch, const AttnForm& f, int layers);
}  // namespace ops

class AttentionKernels {
 public:
  // REQUIRES: deployment_problem(model, dep).empty().
  AttentionKernels(const ModelSpec& model, const Deployment& dep);
  ~AttentionKernels();
  AttentionKernels(const AttentionKernels&) = delete;
  AttentionKernels& operator=(const AttentionKernels&) = delete;
  // The step's decode attention kernel. REQUIRES: batch.decode_seqs > 0.
  OpCost decode(const BatchShape& batch) const {
    return ops::attention_decode(batch.decode_seqs, batch.decode_context_sum, decode_form_, layers_);
  }
  // The step's prefill attention kernel. REQUIRES: !batch.prefills.empty().
  OpCost prefill(const BatchShape& batch) const { return ops::attention_prefill(batch, prefill_form_, layers_); }

 private:
  std::unique_ptr<const ops::Dims> dims_;
  ops::AttnForm prefill_form_;  // computed once: they depend on the model alone
  ops::AttnForm decode_form_;
  int layers_;
};

// The same as a vector, for callers outside the step loop.
std::vector<OpCost> step_ops(const ModelSpec& model, const Deployment& deployment,
                             const BatchShape& batch);

}  // namespace servesim
