// Weight and KV-cache formats through the op graph, the roofline, the memory plan and
// `servesim step`: fp8 weights halve the bytes of the linear layers and run at the fp8
// peak, int4 weights quarter the bytes but multiply in bf16, fp8 KV halves the KV traffic
// and doubles the KV tokens that fit. Figures worked out by hand for Llama-3-8B (hidden
// 4096, 32 layers, 8 KV heads of 128, QKV output 6144) on the H200 profile.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/engine/memory_plan.h"
#include "sim/hardware/roofline.h"
#include "sim/model/op_graph.h"
#include "sim/scenario/model_loader.h"

namespace dtype_test {

using namespace servesim;

namespace {

OpCost find(const std::vector<OpCost>& ops, const std::string& name) {
  for (const auto& o : ops)
    if (name == o.name) return o;
  FAIL("no op " << name);
  return ops.front();
}

BatchShape decode(std::int64_t seqs, std::int64_t context) {
  BatchShape b;
  b.decode_seqs = seqs;
  b.decode_context_sum = seqs * context;
  return b;
}

}  // namespace

TEST_CASE("dtypes: fp8 weights halve the linear layers' bytes and run at the fp8 peak - int4 keeps bf16 math", "[fidelity]") {
  const ModelSpec m = load_model("llama-3-8b");
  const HardwareSpec hw = load_hardware("h200");
  Deployment fp8, int4;
  fp8.weights = Dtype::fp8;
  int4.weights = Dtype::int4;
  const BatchShape b = decode(1, 1024);
  // One row: weights 4096 x 6144 at 1 byte, input 4096 and output 6144 activations in bf16.
  const OpCost q8 = find(step_ops(m, fp8, b), "qkv_proj");
  CHECK(q8.bytes_read == (4096.0 * 6144 * 1 + 4096.0 * 2) * 32);
  CHECK(q8.bytes_written == 6144.0 * 2 * 32);
  const OpCost q4 = find(step_ops(m, int4, b), "qkv_proj");
  CHECK(q4.bytes_read == (4096.0 * 6144 * 0.5 + 4096.0 * 2) * 32);
  // lm_head stays bf16 (vLLM's fp8 checkpoints quantise only the blocks' linear layers).
  CHECK(find(step_ops(m, fp8, b), "lm_head").bytes_read == 4096.0 * 128256 * 2 + 4096.0 * 2);

  OpCost big{"gemm", OpKind::gemm};
  big.flops = 1e13;
  const double fp8_s = RooflineCostModel(m, hw, fp8).time_op(big).compute_s;
  const double int4_s = RooflineCostModel(m, hw, int4).time_op(big).compute_s;
  // fp8 math at the fp8 peak and the profile's fp8 efficiency (0.51 on the H200, from the
  // kernel tables' fp8 GEMM rows), not the bf16 one.
  REQUIRE(hw.gemm_efficiency_fp8 == Approx(0.51));
  CHECK(fp8_s == Approx(1e13 / (1979e12 * 0.51)));
  CHECK(int4_s == Approx(1e13 / (989.5e12 * hw.gemm_efficiency)));

  // A memory-bound decode step gets faster with fewer weight bytes.
  const Tick bf16_ns = RooflineCostModel(m, hw, Deployment{}).step_cost(b).total_ns;
  const Tick fp8_ns = RooflineCostModel(m, hw, fp8).step_cost(b).total_ns;
  const Tick int4_ns = RooflineCostModel(m, hw, int4).step_cost(b).total_ns;
  CHECK(fp8_ns < bf16_ns);
  CHECK(int4_ns < fp8_ns);
}

TEST_CASE("dtypes: an fp8 KV cache halves decode attention's KV bytes and doubles the tokens that fit", "[fidelity]") {
  const ModelSpec m = load_model("llama-3-8b");
  Deployment kv8;
  kv8.kv = Dtype::fp8;
  // 16 sequences of 4096: keys 16 x 4097; K and V of 8 heads x 128 at 1 byte = 2048 bytes
  // per token per layer; Q read and output written in bf16 (32 x 128 x 2 per sequence).
  const OpCost a = find(step_ops(m, kv8, decode(16, 4096)), "attn_decode");
  CHECK(a.bytes_read == (2048.0 * 16 * 4097 + 8192.0 * 16) * 32);
  CHECK(a.bytes_written == (2048.0 * 16 + 8192.0 * 16) * 32);

  const HardwareSpec hw = load_hardware("h100-sxm");
  const MemoryPlan bf16 = plan_memory(m, hw, Deployment{}, 0.9, 8192);
  const MemoryPlan fp8 = plan_memory(m, hw, kv8, 0.9, 8192);
  CHECK(bf16.kv_bytes_per_token_per_gpu == 131072);
  CHECK(fp8.kv_bytes_per_token_per_gpu == 65536);
  // Same weights and reserve: twice the tokens (452,699 in bf16, docs/cost-model.md).
  CHECK(bf16.kv_capacity_tokens == 452699);
  CHECK(fp8.kv_capacity_tokens == 905399);  // floor(59,336,286,208 / 65,536)
  // fp8 weights free 7.0 GB more: 218,103,808 linear parameters per layer x 32 at 1 byte.
  Deployment both = kv8;
  both.weights = Dtype::fp8;
  const MemoryPlan w8 = plan_memory(m, hw, both, 0.9, 8192);
  CHECK(fp8.weight_bytes_per_gpu - w8.weight_bytes_per_gpu == 218103808.0 * 32);
}

TEST_CASE("dtypes: servesim step --weights fp8 --kv fp8 reports the formats and a faster decode step", "[fidelity]") {
  const auto bf16 = testing::run_cli("step --model llama-3-8b --hardware h200 --decode 64:4096 --json");
  const auto fp8 = testing::run_cli("step --model llama-3-8b --hardware h200 --weights fp8 --kv fp8 --decode 64:4096 --json");
  REQUIRE(bf16.exit_code == 0);
  REQUIRE(fp8.exit_code == 0);
  const auto a = nlohmann::json::parse(bf16.output);
  const auto b = nlohmann::json::parse(fp8.output);
  CHECK(b["weights"] == "fp8");
  CHECK(b["kv"] == "fp8");
  CHECK(b["ms"].get<double>() < a["ms"].get<double>());
  double kv_a = 0, kv_b = 0;
  for (const auto& op : a["ops"])
    if (op["name"] == "attn_decode") kv_a = op["bytes"].get<double>();
  for (const auto& op : b["ops"])
    if (op["name"] == "attn_decode") kv_b = op["bytes"].get<double>();
  // KV halves; the bf16 Q and output (8192 bytes x 2 per sequence per layer) do not.
  CHECK(kv_b == Approx((kv_a - 2 * 8192.0 * 64 * 32) / 2 + 2 * 8192.0 * 64 * 32));
}

}  // namespace dtype_test
