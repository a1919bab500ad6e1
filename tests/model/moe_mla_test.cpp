// Mixture-of-experts and multi-head latent attention against figures worked out by hand
// from the published config.json files of Mixtral-8x7B (hidden 4096, 32 layers, 32 query
// and 8 KV heads of 128, 8 SwiGLU experts of 14336, top-2, vocabulary 32000) and
// DeepSeek-V3 (hidden 7168, 61 layers of which the first 3 dense with MLP 18432, 128 heads,
// q_lora 1536, kv_lora 512, qk 128 + 64 rope, v 128, 256 routed experts of 2048, top-8,
// 1 shared expert, vocabulary 129280).
#include <catch2/catch.hpp>

#include <string>

#include "sim/hardware/hardware_spec.h"
#include "sim/engine/memory_plan.h"
#include "sim/scenario/model_loader.h"
#include "sim/model/op_graph.h"
#include "sim/model/shard.h"

namespace moe_mla_test {

using namespace servesim;

namespace {

const OpCost& op(const std::vector<OpCost>& ops, const std::string& name) {
  const OpCost* found = nullptr;
  for (const auto& o : ops)
    if (name == o.name) found = &o;
  INFO("op " << name);
  REQUIRE(found != nullptr);
  return *found;
}

bool has_op(const std::vector<OpCost>& ops, const std::string& name) {
  for (const auto& o : ops)
    if (name == o.name) return true;
  return false;
}

double gemm_flops(const std::vector<OpCost>& ops) {
  double sum = 0;
  for (const auto& o : ops)
    if (o.kind == OpKind::gemm) sum += o.flops;
  return sum;
}

BatchShape decode(std::int64_t seqs, std::int64_t context_each) {
  BatchShape b;
  b.decode_seqs = seqs;
  b.decode_context_sum = seqs * context_each;
  return b;
}

}  // namespace

TEST_CASE("moe: Mixtral-8x7B has 46.7B parameters of which 12.9B are active per token", "[model][moe]") {
  const ModelSpec m = load_model("mixtral-8x7b");
  REQUIRE(m.is_moe());
  // Per layer: attention 4096*6144 + 4096*4096 = 41,943,040; experts 8 * 3*4096*14336 =
  // 1,409,286,144; router 32,768; norms 8,192. x32, plus 2 * 32000*4096 and the final
  // norm: 46,702,792,704. Active: 2 experts instead of 8: 12,879,925,248.
  CHECK(m.parameter_count() == 46702792704.0);
  CHECK(m.active_parameter_count() == 12879925248.0);
  // A dense model's active count is its count.
  const ModelSpec dense = load_model("llama-3-8b");
  CHECK(dense.active_parameter_count() == dense.parameter_count());
}

TEST_CASE("moe: DeepSeek-V3 has 671B parameters of which 37B are active per token", "[model][moe]") {
  const ModelSpec m = load_model("deepseek-v3");
  REQUIRE(m.is_moe());
  REQUIRE(m.is_mla());
  // MLA per layer: q_a 7168*1536 + q_b 1536*128*192 + kv_a 7168*576 + kv_b 512*128*256
  // + o 128*128*7168 = 187,105,280, norms 2*7168 + 1536 + 512. Dense layers add
  // 3*7168*18432; MoE layers 256 routed + 1 shared experts of 3*7168*2048 and a
  // 7168 x 256 router. Total 671,026,404,352 (DeepSeek: 671B).
  CHECK(m.parameter_count() == 671026404352.0);
  CHECK(m.active_parameter_count() == 37552282624.0);
  // DeepSeek's README counts 36.6B active without the 0.93B input embedding.
  CHECK(m.active_parameter_count() - 129280.0 * 7168 == Approx(36.6e9).epsilon(0.001));
  CHECK(m.head_dim == 192);
}

TEST_CASE("moe: a batch of T tokens touches E times 1 minus (1 minus k over E) to the T experts", "[model][moe]") {
  CHECK(expected_experts_touched(8, 2, 1) == 2.0);
  CHECK(expected_experts_touched(8, 2, 8) == Approx(7.1990966796875).epsilon(1e-12));  // 8*(1-0.75^8)
  CHECK(expected_experts_touched(8, 2, 1000) == Approx(8.0).epsilon(1e-12));
  CHECK(expected_experts_touched(256, 8, 1) == Approx(8.0).epsilon(1e-12));
  // 32 DeepSeek tokens: (31/32)^32 = 0.362055, so 256 * 0.637945 = 163.31 of the 256 experts.
  CHECK(expected_experts_touched(256, 8, 32) == Approx(163.3138).epsilon(1e-6));
  CHECK(expected_experts_touched(8, 2, 0) == 0.0);
}

TEST_CASE("moe: a Mixtral decode of one token reads two experts per layer and computes with two", "[model][moe]") {
  const ModelSpec m = load_model("mixtral-8x7b");
  const auto ops = step_ops(m, Deployment{}, decode(1, 1023));
  const OpCost& up = op(ops, "expert_gate_up");
  // 2 experts x 4096 x 28672 bf16 weights, plus the 2 routed copies of the 4096 input.
  CHECK(up.flops == 2.0 * 2 * 4096 * 28672 * 32);
  CHECK(up.bytes_read == (2.0 * 4096 * 28672 * 2 + 2.0 * 4096 * 2) * 32);
  CHECK(op(ops, "expert_down").bytes_read == (2.0 * 14336 * 4096 * 2 + 2.0 * 14336 * 2) * 32);
  CHECK(op(ops, "moe_router").flops == 2.0 * 4096 * 8 * 32);
  // The 2 expert outputs are read and summed into the token's row.
  CHECK(op(ops, "moe_combine").bytes_read == 2.0 * 4096 * 2 * 32);
  CHECK(op(ops, "moe_combine").bytes_written == 1.0 * 4096 * 2 * 32);
  CHECK_FALSE(has_op(ops, "gate_up_proj"));  // no dense layers
  CHECK_FALSE(has_op(ops, "shared_gate_up"));
  // At one token every GEMM multiplies the active weights once: 2 x (12,617,515,008
  // block weights incl. router + 131,072,000 lm_head) = 25,497,174,016 FLOPs.
  CHECK(gemm_flops(ops) == 25497174016.0);

  // 8 decodes touch 8*(1-0.75^8) = 7.199 experts: the weights read grow 3.6x, not 4x.
  const auto eight = step_ops(m, Deployment{}, decode(8, 1023));
  CHECK(op(eight, "expert_gate_up").bytes_read ==
        Approx((7.1990966796875 * 4096 * 28672 * 2 + 16.0 * 4096 * 2) * 32).epsilon(1e-12));
  CHECK(op(eight, "expert_gate_up").flops == 2.0 * 16 * 4096 * 28672 * 32);
}

TEST_CASE("moe: expert parallelism keeps the FLOPs but a one-token decode reads a whole expert", "[model][moe]") {
  const ModelSpec m = load_model("mixtral-8x7b");
  Deployment tp8;
  tp8.tp = 8;
  Deployment ep8 = tp8;
  ep8.ep = 8;
  CHECK(deployment_problem(m, ep8).empty());
  // Both hold 1/8 of every layer's experts.
  CHECK(weight_bytes_per_gpu(m, ep8) == weight_bytes_per_gpu(m, tp8));
  const auto a = step_ops(m, tp8, decode(1, 1023));
  const auto b = step_ops(m, ep8, decode(1, 1023));
  CHECK(op(a, "expert_gate_up").flops == op(b, "expert_gate_up").flops);
  // tp=8: 2 experts sliced to 14336/8 = 1792. ep=8: the busiest GPU holds one whole expert.
  CHECK(op(a, "expert_gate_up").bytes_read == (2.0 * 4096 * 3584 * 2 + 2.0 * 4096 * 2) * 32);
  CHECK(op(b, "expert_gate_up").bytes_read == (1.0 * 4096 * 28672 * 2 + 0.25 * 4096 * 2) * 32);
  // With 256 tokens every expert is touched either way: the same 1/8 of the expert weights
  // per GPU. Only the routed inputs differ: tp=8 reads all 512 token-expert rows (of
  // narrow experts), ep=8 its 64.
  const auto c = step_ops(m, tp8, decode(256, 1023));
  const auto d = step_ops(m, ep8, decode(256, 1023));
  CHECK(op(c, "expert_gate_up").bytes_read == (8.0 * 4096 * 3584 * 2 + 512.0 * 4096 * 2) * 32);
  CHECK(op(d, "expert_gate_up").bytes_read == (1.0 * 4096 * 28672 * 2 + 64.0 * 4096 * 2) * 32);

  Deployment bad = tp8;
  bad.ep = 3;
  CHECK(deployment_problem(m, bad).find("ep=3 must divide tp=8") != std::string::npos);
  Deployment dense_ep;
  dense_ep.tp = 2;
  dense_ep.ep = 2;
  CHECK(deployment_problem(load_model("llama-3-8b"), dense_ep).find("mixture-of-experts") != std::string::npos);
}

TEST_CASE("mla: DeepSeek-V3 caches 576 latent elements per token and layer on every GPU", "[model][mla]") {
  const ModelSpec m = load_model("deepseek-v3");
  // (kv_lora 512 + rope 64) x 61 layers x 2 bytes = 70,272 bytes, against 2*128*192*61*2
  // = 5,996,544 for the same heads without compression.
  CHECK(m.kv_bytes_per_token(Dtype::bf16) == 70272.0);
  CHECK(m.kv_bytes_per_token(Dtype::fp8) == 35136.0);
  HardwareSpec h200;
  h200.name = "h200";
  h200.memory_bytes = 141e9;
  Deployment dep;
  dep.tp = 8;
  dep.weights = Dtype::fp8;
  const MemoryPlan plan = plan_memory(m, h200, dep, 0.9, 8192);
  // The latent is replicated across TP ranks: still 70,272 bytes per token per GPU.
  CHECK(plan.kv_bytes_per_token_per_gpu == 70272.0);
  CHECK(plan.fits);
  // fp8 weights per GPU: MoE layer = attention 36,634,624 (q_a and kv_a replicated) +
  // 256 experts of 3*7168*256 + shared 3*7168*256 at 1 byte, router and norms 1,851,392 at
  // 2 bytes = 1,455,128,576; dense layer 86,212,608; 3 dense + 58 MoE layers, plus
  // embedding and lm_head split 8 ways in bf16 (463,339,520) and the final norm.
  CHECK(plan.weight_bytes_per_gpu == 85119449088.0);
}

TEST_CASE("mla: DeepSeek-V3 decode attention runs over the latent and prefill over decompressed heads", "[model][mla]") {
  const ModelSpec m = load_model("deepseek-v3");
  const auto ops = step_ops(m, Deployment{}, decode(1, 1023));
  const OpCost& attn = op(ops, "attn_decode");
  // Per key and head: QK over 512 + 64 = 576 (2*576 FLOPs) and PV over 512 (2*512):
  // 2176 x 128 heads x 1024 keys x 61 layers.
  CHECK(attn.flops == 2176.0 * 128 * 1024 * 61);
  // Reads the 576-element bf16 latent of 1024 tokens and a 128 x 576 query per layer.
  CHECK(attn.bytes_read == (576.0 * 2 * 1024 + 128.0 * 576 * 2) * 61);
  CHECK(op(ops, "qkv_a_proj").flops == 2.0 * 7168 * (1536 + 576) * 61);
  CHECK(op(ops, "kv_b_proj").flops == 2.0 * 512 * 128 * 256 * 61);
  // First 3 layers dense, 58 MoE with one shared expert.
  CHECK(op(ops, "gate_up_proj").flops == 2.0 * 7168 * 36864 * 3);
  CHECK(op(ops, "shared_gate_up").flops == 2.0 * 7168 * 4096 * 58);
  CHECK(op(ops, "expert_gate_up").flops == 2.0 * 8 * 7168 * 4096 * 58);
  // One token goes through exactly the active weights (less the embedding and norms):
  // 2 x (37,552,282,624 - 129280*7168 - 61*(2*7168+1536+512) - 7168) FLOPs.
  CHECK(gemm_flops(ops) == 73249193984.0);

  BatchShape prefill;
  prefill.prefills.push_back({1000, 24, true});
  const auto p = step_ops(m, Deployment{}, prefill);
  // 1000*24 + 1000*1001/2 = 524,500 pairs; per pair and head 2*192 + 2*128 = 640 FLOPs.
  CHECK(op(p, "attn_prefill").flops == 640.0 * 128 * 524500 * 61);
  // kv_b_proj decompresses the 24 cached tokens too: 1024 rows.
  CHECK(op(p, "kv_b_proj").flops == 2.0 * 1024 * 512 * 128 * 256 * 61);
}

TEST_CASE("moe: DeepSeek-V3 over 4 pipeline stages models a last stage of 16 MoE layers", "[model][moe]") {
  const ModelSpec m = load_model("deepseek-v3");
  Deployment dep;
  dep.tp = 8;
  dep.pp = 4;
  const ShardShape s = shard_shape(m, dep);
  CHECK(s.layers == 16);  // ceil(61 / 4)
  CHECK(s.moe_layers == 16);
  CHECK(s.dense_layers == 0);
  // Weights: stages hold layers 0-15 (3 dense + 13 MoE), 16-31, 32-47 (16 MoE each) and
  // 48-60 (13 MoE). The busiest holds 16 MoE layers of 1,455,128,576 fp8 bytes (see the
  // memory-plan test) plus one vocab matrix split 8 ways (231,669,760) and the final norm.
  dep.weights = Dtype::fp8;
  CHECK(weight_bytes_per_gpu(m, dep) == 16.0 * 1455128576 + 231669760 + 14336);
  dep.pp = 1;
  CHECK(shard_shape(m, dep).dense_layers == 3);
  CHECK(shard_shape(m, dep).moe_layers == 58);
}

}  // namespace moe_mla_test
