// The op graph against FLOPs and bytes worked out by hand from Llama-3-8B's published
// architecture (hidden 4096, 32 layers, 32 query heads and 8 KV heads of dim 128, SwiGLU
// MLP 14336, vocabulary 128256, untied lm_head), all in bf16 (2 bytes per element).
#include <catch2/catch.hpp>

#include <string>

#include "sim/model/op_graph.h"
#include "sim/model/shard.h"

namespace op_graph_test {

using namespace servesim;

namespace {

ModelSpec llama3_8b() {
  ModelSpec m;
  m.name = "llama-3-8b";
  m.num_layers = 32;
  m.hidden_size = 4096;
  m.num_attention_heads = 32;
  m.num_kv_heads = 8;
  m.head_dim = 128;
  m.intermediate_size = 14336;
  m.vocab_size = 128256;
  m.max_context_tokens = 8192;
  return m;
}

const OpCost* find_op(const std::vector<OpCost>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (name == op.name) return &op;
  return nullptr;
}

const OpCost& op(const std::vector<OpCost>& ops, const std::string& name) {
  const OpCost* found = find_op(ops, name);
  INFO("op " << name);
  REQUIRE(found != nullptr);
  return *found;
}

double gemm_flops(const std::vector<OpCost>& ops) {
  double sum = 0;
  for (const auto& o : ops)
    if (o.kind == OpKind::gemm) sum += o.flops;
  return sum;
}

}  // namespace

TEST_CASE("op graph: Llama-3-8B prefill of 1024 tokens matches the hand-worked FLOPs and bytes", "[model]") {
  BatchShape b;
  b.prefills.push_back({1024, 0, true});
  const auto ops = step_ops(llama3_8b(), Deployment{}, b);

  // Fused QKV: N = (32 + 2*8) * 128 = 6144 outputs, K = 4096, M = 1024 rows, 32 layers.
  CHECK(op(ops, "qkv_proj").flops == 2.0 * 1024 * 4096 * 6144 * 32);              // 1.649e12
  CHECK(op(ops, "qkv_proj").bytes_read == (4096.0 * 6144 * 2 + 1024.0 * 4096 * 2) * 32);
  CHECK(op(ops, "qkv_proj").bytes_written == 1024.0 * 6144 * 2 * 32);
  CHECK(op(ops, "qkv_proj").count == 32);
  // O: 4096 x 4096 weights. gate_up: 4096 x 28672. down: 14336 x 4096.
  CHECK(op(ops, "o_proj").flops == 2.0 * 1024 * 4096 * 4096 * 32);
  CHECK(op(ops, "gate_up_proj").flops == 2.0 * 1024 * 4096 * 28672 * 32);
  CHECK(op(ops, "gate_up_proj").bytes_read == (4096.0 * 28672 * 2 + 1024.0 * 4096 * 2) * 32);
  CHECK(op(ops, "gate_up_proj").bytes_written == 1024.0 * 28672 * 2 * 32);
  CHECK(op(ops, "down_proj").flops == 2.0 * 1024 * 14336 * 4096 * 32);
  CHECK(op(ops, "down_proj").bytes_read == (14336.0 * 4096 * 2 + 1024.0 * 14336 * 2) * 32);

  // Causal attention over 1024 new tokens: 1024*1025/2 = 524800 query-key pairs per head,
  // 4 * 128 FLOPs per pair (QK^T and PV), 32 heads, 32 layers = 275,146,342,400 FLOPs.
  CHECK(op(ops, "attn_prefill").flops == 275146342400.0);
  // KV: 2 * 8 heads * 128 * 2 bytes = 4096 bytes per token per layer, read for 1024 tokens
  // and written for 1024; Q read and output written: 32 * 128 * 2 = 8192 bytes per token.
  CHECK(op(ops, "attn_prefill").bytes_read == (4096.0 * 1024 + 8192.0 * 1024) * 32);
  CHECK(op(ops, "attn_prefill").bytes_written == (4096.0 * 1024 + 8192.0 * 1024) * 32);
  CHECK(find_op(ops, "attn_decode") == nullptr);

  // Only the last token reaches lm_head: 2 * 1 * 4096 * 128256 FLOPs and the whole matrix.
  CHECK(op(ops, "lm_head").flops == 2.0 * 4096 * 128256);
  CHECK(op(ops, "lm_head").bytes_read == 4096.0 * 128256 * 2 + 4096.0 * 2);
  CHECK(op(ops, "final_norm").count == 1);

  // Cross-check with the published parameter count 8,030,261,248: the block GEMMs touch
  // every parameter except two 128256 x 4096 vocabulary matrices and 32*2*4096 + 4096 norm
  // weights, twice per token.
  const double block_linear_params = 8030261248.0 - 2.0 * 128256 * 4096 - (32.0 * 2 * 4096 + 4096);
  CHECK(block_linear_params == 6979321856.0);
  CHECK(gemm_flops(ops) == 2.0 * 1024 * block_linear_params + 2.0 * 4096 * 128256);

  // One GPU, one stage: no communication, the embedding is looked up here.
  CHECK(find_op(ops, "attn_all_reduce") == nullptr);
  CHECK(op(ops, "embedding").bytes_read == 1024.0 * 4096 * 2);
  // RMSNorm reads the rows and its 4096 weights and writes the rows, in each layer.
  CHECK(op(ops, "input_norm").bytes_read == (1024.0 * 4096 * 2 + 4096 * 2) * 32);
  CHECK(op(ops, "silu_mul").bytes_read == 2.0 * 1024 * 14336 * 2 * 32);
  CHECK(op(ops, "silu_mul").bytes_written == 1024.0 * 14336 * 2 * 32);
}

TEST_CASE("op graph: Llama-3-8B decode of 32 sequences at context 1024 matches the hand-worked figures", "[model]") {
  BatchShape b;
  b.decode_seqs = 32;
  b.decode_context_sum = 32 * 1024;
  const auto ops = step_ops(llama3_8b(), Deployment{}, b);

  // 32 rows through every GEMM: weights dominate the bytes.
  CHECK(op(ops, "qkv_proj").flops == 2.0 * 32 * 4096 * 6144 * 32);
  CHECK(op(ops, "qkv_proj").bytes_read == (4096.0 * 6144 * 2 + 32.0 * 4096 * 2) * 32);
  CHECK(op(ops, "down_proj").bytes_written == 32.0 * 4096 * 2 * 32);

  // Each sequence reads the KV of its 1024 cached tokens plus the new one: 32 * 1025 =
  // 32800 tokens * 4096 bytes per layer = 134,348,800 bytes per layer.
  const OpCost& attn = op(ops, "attn_decode");
  CHECK(attn.bytes_read == (134348800.0 + 32 * 8192.0) * 32);
  CHECK(attn.bytes_written == (32 * 4096.0 + 32 * 8192.0) * 32);
  // 4 * 128 FLOPs per (query head, key) pair: 4 * 128 * 32 heads * 32800 keys * 32 layers.
  CHECK(attn.flops == 17196646400.0);
  CHECK(find_op(ops, "attn_prefill") == nullptr);

  // Every decode sequence samples: 32 rows through lm_head.
  CHECK(op(ops, "lm_head").flops == 2.0 * 32 * 4096 * 128256);
  CHECK(op(ops, "lm_head").bytes_written == 32.0 * 128256 * 2);
}

TEST_CASE("op graph: chunked prefill attends over the cached past and skips lm_head until the last chunk", "[model]") {
  BatchShape b;
  b.prefills.push_back({512, 1536, false});
  const auto ops = step_ops(llama3_8b(), Deployment{}, b);
  // 512 new tokens over 1536 cached: 512*1536 + 512*513/2 = 786432 + 131328 pairs.
  CHECK(op(ops, "attn_prefill").flops == 4.0 * 128 * 32 * (786432 + 131328) * 32);
  // Reads the KV of all 2048 tokens, writes the KV of the 512 new ones.
  CHECK(op(ops, "attn_prefill").bytes_read == (4096.0 * 2048 + 8192.0 * 512) * 32);
  CHECK(op(ops, "attn_prefill").bytes_written == (4096.0 * 512 + 8192.0 * 512) * 32);
  CHECK(find_op(ops, "lm_head") == nullptr);
  CHECK(find_op(ops, "final_norm") == nullptr);
}

TEST_CASE("op graph: grouped-query attention shrinks the QKV projection and the KV traffic", "[model]") {
  ModelSpec mha = llama3_8b();
  mha.num_kv_heads = 32;  // Llama-2-7B style: a K and V head per query head
  BatchShape b;
  b.decode_seqs = 1;
  b.decode_context_sum = 999;
  const auto gqa_ops = step_ops(llama3_8b(), Deployment{}, b);
  const auto mha_ops = step_ops(mha, Deployment{}, b);
  // QKV outputs: 32*128 + 2*8*128 = 6144 with GQA, 3*4096 = 12288 without.
  CHECK(op(gqa_ops, "qkv_proj").flops == 2.0 * 1 * 4096 * 6144 * 32);
  CHECK(op(mha_ops, "qkv_proj").flops == 2.0 * 1 * 4096 * 12288 * 32);
  // 1000 keys: 1000 * 2*8*128*2 = 4,096,000 KV bytes per layer with GQA, 4x that without.
  CHECK(op(gqa_ops, "attn_decode").bytes_read == (4096000.0 + 8192) * 32);
  CHECK(op(mha_ops, "attn_decode").bytes_read == (4 * 4096000.0 + 8192) * 32);
  // The attention FLOPs depend on query heads only.
  CHECK(op(gqa_ops, "attn_decode").flops == op(mha_ops, "attn_decode").flops);
}

TEST_CASE("op graph: tensor parallelism splits weights and heads and adds two ring all-reduces per layer", "[model]") {
  BatchShape b;
  b.prefills.push_back({1000, 0, true});
  Deployment tp2;
  tp2.tp = 2;
  const auto one = step_ops(llama3_8b(), Deployment{}, b);
  const auto two = step_ops(llama3_8b(), tp2, b);

  // Per GPU: 16 query heads and 4 KV heads, so N = (16 + 8) * 128 = 3072.
  CHECK(op(two, "qkv_proj").flops == 2.0 * 1000 * 4096 * 3072 * 32);
  CHECK(op(two, "qkv_proj").flops * 2 == op(one, "qkv_proj").flops);
  CHECK(op(two, "gate_up_proj").bytes_read == (4096.0 * 14336 * 2 + 1000.0 * 4096 * 2) * 32);
  CHECK(op(two, "attn_prefill").flops * 2 == op(one, "attn_prefill").flops);
  // lm_head is vocab-parallel: 64128 rows per GPU.
  CHECK(op(two, "lm_head").flops == 2.0 * 4096 * 64128);
  // Ring all-reduce of 1000 x 4096 bf16 (8,192,000 bytes): each GPU moves 2*(2-1)/2 of it,
  // once after attention and once after the MLP, in every layer.
  CHECK(op(two, "attn_all_reduce").comm_bytes == 8192000.0 * 32);
  CHECK(op(two, "mlp_all_reduce").comm_bytes == 8192000.0 * 32);
  CHECK(op(two, "mlp_all_reduce").count == 32);
  CHECK(op(two, "attn_all_reduce").kind == OpKind::communication);

  Deployment tp8;
  tp8.tp = 8;
  const auto eight = step_ops(llama3_8b(), tp8, b);
  CHECK(op(eight, "attn_all_reduce").comm_bytes == 2.0 * 7 / 8 * 8192000.0 * 32);
}

TEST_CASE("op graph: more GPUs than KV heads replicate one KV head per GPU", "[model]") {
  Deployment tp16;
  tp16.tp = 16;
  CHECK(deployment_problem(llama3_8b(), tp16).empty());
  const ShardShape s = shard_shape(llama3_8b(), tp16);
  CHECK(s.q_heads == 2);
  CHECK(s.kv_heads == 1);
  BatchShape b;
  b.decode_seqs = 1;
  b.decode_context_sum = 99;
  const auto ops = step_ops(llama3_8b(), tp16, b);
  CHECK(op(ops, "qkv_proj").flops == 2.0 * 4096 * (2 + 2 * 1) * 128 * 32);
  CHECK(op(ops, "attn_decode").bytes_read == (100.0 * 2 * 1 * 128 * 2 + 2 * 128 * 2) * 32);
}

TEST_CASE("op graph: a tensor-parallel degree that does not divide the heads is refused by name", "[model]") {
  Deployment tp3;
  tp3.tp = 3;
  const std::string why = deployment_problem(llama3_8b(), tp3);
  CHECK(why.find("tp=3") != std::string::npos);
  CHECK(why.find("32 attention heads") != std::string::npos);
  Deployment pp64;
  pp64.pp = 64;
  CHECK_FALSE(deployment_problem(llama3_8b(), pp64).empty());
}

TEST_CASE("op graph: pipeline parallelism models the last stage with its share of layers", "[model]") {
  Deployment pp4;
  pp4.pp = 4;
  BatchShape b;
  b.decode_seqs = 8;
  b.decode_context_sum = 8 * 100;
  const auto ops = step_ops(llama3_8b(), pp4, b);
  CHECK(op(ops, "qkv_proj").count == 8);
  CHECK(op(ops, "qkv_proj").flops == 2.0 * 8 * 4096 * 6144 * 8);
  CHECK(find_op(ops, "embedding") == nullptr);
  // The stage receives 8 rows of 4096 bf16 activations from the one before.
  CHECK(op(ops, "pp_transfer").comm_bytes == 8.0 * 4096 * 2);
  CHECK(op(ops, "lm_head").flops == 2.0 * 8 * 4096 * 128256);
  // 30 layers over 4 stages: the largest stage holds ceil(30/4) = 8.
  ModelSpec odd = llama3_8b();
  odd.num_layers = 30;
  CHECK(shard_shape(odd, pp4).layers == 8);
}

TEST_CASE("op graph: weight-only int4 quarters the linear-layer weight bytes but not the FLOPs", "[model]") {
  Deployment q;
  q.weights = Dtype::int4;
  BatchShape b;
  b.decode_seqs = 1;
  const auto bf16 = step_ops(llama3_8b(), Deployment{}, b);
  const auto int4 = step_ops(llama3_8b(), q, b);
  CHECK(op(int4, "down_proj").bytes_read == (14336.0 * 4096 * 0.5 + 14336.0 * 2) * 32);
  CHECK(op(int4, "down_proj").flops == op(bf16, "down_proj").flops);
  // lm_head stays in bf16.
  CHECK(op(int4, "lm_head").bytes_read == op(bf16, "lm_head").bytes_read);
}

TEST_CASE("model spec: Llama-3-8B and Llama-2-7B parameter counts match the published totals", "[model]") {
  // 8,030,261,248 and 6,738,415,616 are the totals the Hugging Face checkpoints report.
  CHECK(llama3_8b().parameter_count() == 8030261248.0);
  ModelSpec l2 = llama3_8b();
  l2.num_kv_heads = 32;
  l2.intermediate_size = 11008;
  l2.vocab_size = 32000;
  CHECK(l2.parameter_count() == 6738415616.0);
  CHECK(llama3_8b().weight_bytes(Dtype::bf16) == 2.0 * 8030261248.0);
  // KV: 2 (K and V) * 32 layers * 8 heads * 128 * 2 bytes = 131072 bytes per token.
  CHECK(llama3_8b().kv_bytes_per_token(Dtype::bf16) == 131072.0);
  CHECK(llama3_8b().kv_bytes_per_token(Dtype::fp8) == 65536.0);
  // fp8 halves only the block linear layers: 6,979,321,856 parameters at 1 byte plus
  // 1,050,939,392 vocabulary and norm weights at 2.
  CHECK(llama3_8b().weight_bytes(Dtype::fp8) == 6979321856.0 + 2.0 * 1050939392.0);
}

}  // namespace op_graph_test
