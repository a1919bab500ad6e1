// The attention half of a layer: projections, the attention kernels, o_proj. Two forms:
// ordinary multi/grouped-query attention, and DeepSeek's multi-head latent attention (MLA).
#include "sim/model/op_parts.h"

namespace servesim::ops {

namespace {

// The attention kernels of a step: prefill, then decode, each where the step has it.
void append_attention_kernels(const BatchShape& batch, const AttnForm& prefill,
                              const AttnForm& decode, int layers, StepOps& out) {
  if (!batch.prefills.empty()) out.push_back(attention_prefill(batch, prefill, layers));
  if (batch.decode_seqs > 0) out.push_back(attention_decode(batch.decode_seqs, batch.decode_context_sum, decode, layers));
}

AttnForm mla_prefill_form(const ModelSpec& m, const Dims& x) {
  const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
  const double latent = static_cast<double>(m.kv_lora_rank) + m.qk_rope_head_dim;
  return {x.qh * (2.0 * qk + 2.0 * m.v_head_dim), x.qh * (qk + m.v_head_dim) * x.a, latent * x.kv,
          x.qh * qk * x.a, x.qh * m.v_head_dim * x.a};
}

AttnForm mla_decode_form(const ModelSpec& m, const Dims& x) {
  const double latent = static_cast<double>(m.kv_lora_rank) + m.qk_rope_head_dim;
  return {x.qh * (2.0 * latent + 2.0 * m.kv_lora_rank), latent * x.kv, latent * x.kv,
          x.qh * latent * x.a, x.qh * m.kv_lora_rank * x.a};
}

// Ordinary multi/grouped-query attention: each pair costs 2*d FLOPs in QK^T and 2*d in PV,
// per query head; K and V of every KV head are 2*kvh*d elements per token.
AttnForm standard_form(const Dims& x) {
  const double kv_per_token = 2.0 * x.kvh * x.d * x.kv;
  const double q_or_out = x.qh * x.d * x.a;
  return {4.0 * x.d * x.qh, kv_per_token, kv_per_token, q_or_out, q_or_out};
}

// MLA as vLLM runs it. The down-projections of Q and KV (fused "qkv_a_proj") are
// replicated on every TP GPU; the cache keeps the kv_lora + rope latent. Prefill
// decompresses K and V for every key (new tokens and the cached context) with kv_b_proj
// and runs ordinary attention with qk = nope + rope and v head dims. Decode keeps the
// latent form ("weight absorption"): q_nope x W_UK and the output x W_UV cost the same
// FLOPs and weight reads as kv_b_proj on one row, and attention runs over the latent:
// 2*(kv_lora + rope) FLOPs per pair per head for QK and 2*kv_lora for PV.
void append_mla(const ModelSpec& m, const BatchShape& batch, const Dims& x, double rows,
                StepOps& out) {
  const int L = x.layers;
  const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
  const double latent = static_cast<double>(m.kv_lora_rank) + m.qk_rope_head_dim;
  if (m.q_lora_rank > 0) {
    out.push_back(gemm("qkv_a_proj", rows, x.h, m.q_lora_rank + latent, x, x.w, L));
    out.push_back(gemm("q_b_proj", rows, m.q_lora_rank, x.qh * qk, x, x.w, L));
  } else {
    out.push_back(gemm("q_proj", rows, x.h, x.qh * qk, x, x.w, L));
    out.push_back(gemm("kv_a_proj", rows, x.h, latent, x, x.w, L));
  }
  double decompressed = rows;
  for (const PrefillChunk& c : batch.prefills) decompressed += static_cast<double>(c.past_tokens);
  out.push_back(gemm("kv_b_proj", decompressed, m.kv_lora_rank,
                     x.qh * (m.qk_nope_head_dim + m.v_head_dim), x, x.w, L));
  append_attention_kernels(batch, mla_prefill_form(m, x), mla_decode_form(m, x), L, out);
  out.push_back(gemm("o_proj", rows, x.qh * m.v_head_dim, x.h, x, x.w, L));
}

}  // namespace

// Prefill chunks: each of the n new tokens attends to the p cached tokens and causally to
// the new ones before it and itself: n*p + n*(n+1)/2 query-key pairs. Memory: the K/V of
// p+n tokens is read, the n new tokens' KV written, Q read and the output written.
OpCost attention_prefill(const BatchShape& batch, const AttnForm& f, int layers) {
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
  return attention_op("attn_prefill", f, pairs, /*keys_read=*/tokens_read, /*rows=*/new_tokens, layers);
}


void append_attention(const ModelSpec& model, const BatchShape& batch, const Dims& x,
                      double rows, StepOps& out) {
  if (model.is_mla()) {
    append_mla(model, batch, x, rows, out);
    return;
  }
  const int L = x.layers;
  const double qkv_out = (x.qh + 2 * x.kvh) * x.d;
  OpCost qkv = gemm("qkv_proj", rows, x.h, qkv_out, x, x.w, L);
  if (model.attention_bias) qkv.bytes_read += qkv_out * x.bf16 * L;  // bias, added in the epilogue
  out.push_back(qkv);
  const AttnForm form = standard_form(x);
  append_attention_kernels(batch, form, form, L, out);
  out.push_back(gemm("o_proj", rows, x.qh * x.d, x.h, x, x.w, L));
}

AttnForm decode_attention_form(const ModelSpec& model, const Dims& x) {
  return model.is_mla() ? mla_decode_form(model, x) : standard_form(x);
}

AttnForm prefill_attention_form(const ModelSpec& model, const Dims& x) {
  return model.is_mla() ? mla_prefill_form(model, x) : standard_form(x);
}


}  // namespace servesim::ops
