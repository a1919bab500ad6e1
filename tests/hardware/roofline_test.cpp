#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "sim/hardware/roofline.h"
#include "sim/model/op_graph.h"

namespace roofline_test {

using namespace servesim;

namespace {

// Round numbers so the expected times can be worked out by hand.
HardwareSpec round_gpu() {
  HardwareSpec hw;
  hw.name = "round";
  hw.memory_bytes = 80e9;
  hw.memory_bandwidth_bytes_per_s = 2e12;
  hw.peak_flops_bf16 = 1e15;
  hw.peak_flops_fp8 = 2e15;
  hw.interconnect_bandwidth_bytes_per_s = 100e9;
  hw.interconnect_latency_s = 10e-6;
  hw.gemm_efficiency = 0.5;
  hw.attention_efficiency = 0.25;
  hw.memory_efficiency = 0.5;
  hw.comm_efficiency = 0.5;
  hw.step_overhead_s = 1e-3;
  hw.layer_overhead_s = 10e-6;
  return hw;
}

ModelSpec small_model() {
  ModelSpec m;
  m.name = "small";
  m.num_layers = 4;
  m.hidden_size = 1024;
  m.num_attention_heads = 8;
  m.num_kv_heads = 8;
  m.head_dim = 128;
  m.intermediate_size = 4096;
  m.vocab_size = 1000;
  return m;
}

}  // namespace

TEST_CASE("roofline: a GEMM takes the quadrature sum of its compute and memory times - other ops the larger", "[hardware]") {
  const RooflineCostModel rf(small_model(), round_gpu(), Deployment{});
  OpCost gemm{"g", OpKind::gemm};
  gemm.flops = 1e12;        // / (1e15 * 0.5) = 2 ms
  gemm.bytes_read = 1e9;    // / (2e12 * 0.5) = 1 ms
  const OpTiming t = rf.time_op(gemm);
  CHECK(t.compute_s == Approx(2e-3));
  CHECK(t.memory_s == Approx(1e-3));
  CHECK(t.time_s == Approx(std::sqrt(5.0) * 1e-3));  // sqrt(2^2 + 1^2) ms
  CHECK(t.bound == "compute");
  // Far from the ridge the sum is the larger side: 2 ms of compute and 1 us of memory.
  gemm.bytes_read = 1e6;
  CHECK(rf.time_op(gemm).time_s == Approx(2e-3).epsilon(1e-6));

  OpCost attn{"a", OpKind::attention};
  attn.flops = 1e11;        // / (1e15 * 0.25) = 0.4 ms
  attn.bytes_read = 3e8;
  attn.bytes_written = 2e8; // 5e8 / 1e12 = 0.5 ms
  const OpTiming a = rf.time_op(attn);
  CHECK(a.time_s == Approx(0.5e-3));
  CHECK(a.bound == "memory");
  CHECK(a.bytes == 5e8);

  OpCost ar{"ar", OpKind::communication};
  ar.comm_bytes = 1e8;      // / (100e9 * 0.5) = 2 ms, + 4 launches x 10 us
  ar.count = 4;
  const OpTiming c = rf.time_op(ar);
  CHECK(c.time_s == Approx(2.04e-3));
  CHECK(c.bound == "communication");

  // 1 ms per step + 10 us x 4 layers.
  CHECK(rf.overhead_s() == Approx(1.04e-3));
}

TEST_CASE("roofline: fp8 weights run their GEMMs at the fp8 peak", "[hardware]") {
  Deployment fp8;
  fp8.weights = Dtype::fp8;
  const RooflineCostModel rf(small_model(), round_gpu(), fp8);
  OpCost gemm{"g", OpKind::gemm};
  gemm.flops = 1e12;  // / (2e15 * 0.5) = 1 ms
  CHECK(rf.time_op(gemm).time_s == Approx(1e-3));
}

TEST_CASE("roofline: the step splits into compute - memory - communication and overhead that add up", "[hardware]") {
  Deployment tp2;
  tp2.tp = 2;
  const RooflineCostModel rf(small_model(), round_gpu(), tp2);
  BatchShape b;
  b.prefills.push_back({2048, 0, true});
  b.decode_seqs = 16;
  b.decode_context_sum = 16 * 500;
  const StepCost cost = rf.step_cost(b);
  CHECK(cost.total_ns == cost.compute_ns + cost.memory_ns + cost.comm_ns + cost.overhead_ns);
  CHECK(cost.compute_ns > 0);
  CHECK(cost.memory_ns > 0);
  CHECK(cost.comm_ns > 0);
  CHECK(cost.overhead_ns == 1040000);

  // The breakdown adds up to the same total, its last entry being the overhead.
  const auto ops = rf.breakdown(b);
  double sum_s = 0;
  for (const auto& o : ops) sum_s += o.time_s;
  CHECK(sum_s * 1e9 == Approx(static_cast<double>(cost.total_ns)).margin(8));
  CHECK(ops.back().bound == "overhead");
  // Two all-reduces of 2064 x 1024 bf16 per layer, each GPU moving half: 4,227,072 bytes,
  // 4 layers, over 50 GB/s, plus 10 us per launch.
  double comm_s = 0;
  for (const auto& o : ops)
    if (o.bound == "communication") comm_s += o.time_s;
  CHECK(comm_s == Approx(2 * (4227072.0 * 4 / 50e9 + 4 * 10e-6)));
}

TEST_CASE("roofline: a tiny step on a free machine still takes at least one nanosecond", "[hardware]") {
  HardwareSpec fast = round_gpu();
  fast.step_overhead_s = 0;
  fast.layer_overhead_s = 0;
  fast.memory_bandwidth_bytes_per_s = 1e30;
  fast.peak_flops_bf16 = 1e30;
  const RooflineCostModel rf(small_model(), fast, Deployment{});
  BatchShape b;
  b.decode_seqs = 1;
  CHECK(rf.step_cost(b).total_ns == 1);
}

TEST_CASE("roofline: decode is memory-bound and long prefill compute-bound", "[hardware]") {
  const RooflineCostModel rf(small_model(), round_gpu(), Deployment{});
  BatchShape decode;
  decode.decode_seqs = 4;
  decode.decode_context_sum = 4 * 100;
  const StepCost d = rf.step_cost(decode);
  CHECK(d.memory_ns > d.compute_ns);
  BatchShape prefill;
  prefill.prefills.push_back({8192, 0, true});
  const StepCost p = rf.step_cost(prefill);
  CHECK(p.compute_ns > p.memory_ns);
}

TEST_CASE("roofline: every GEMM and attention launch pays the kernel overhead - counted as overhead", "[fidelity]") {
  HardwareSpec hw = round_gpu();
  hw.kernel_overhead_s = 5e-6;
  const RooflineCostModel rf(small_model(), hw, Deployment{});
  OpCost gemm{"g", OpKind::gemm};
  gemm.flops = 1e12;  // 2 ms, no bytes
  gemm.count = 4;     // 4 launches x 5 us
  const OpTiming t = rf.time_op(gemm);
  CHECK(t.time_s == Approx(2e-3 + 20e-6));
  CHECK(t.overhead_s == Approx(20e-6));
  OpCost norm{"n", OpKind::elementwise};
  norm.bytes_read = 1e6;
  norm.count = 4;
  CHECK(rf.time_op(norm).overhead_s == 0);  // elementwise launches are in layer_overhead
  // In a whole step the launches land in overhead_ns: the small model's decode step has
  // (4 GEMMs + 1 attention) x 4 layers + lm_head = 21 such launches; plus 1 ms per step
  // and 10 us x 4 layers.
  BatchShape b;
  b.decode_seqs = 1;
  b.decode_context_sum = 10;
  CHECK(rf.step_cost(b).overhead_ns == 1'040'000 + 21 * 5'000);
}

TEST_CASE("roofline: prefill attention charges each query row its overhead in keys", "[fidelity]") {
  HardwareSpec hw = round_gpu();
  hw.attention_row_overhead_keys = 1000;
  const RooflineCostModel rf(small_model(), hw, Deployment{});
  // One 1000-token chunk over 500 cached tokens, small model (8 heads x 128, 4 layers):
  // pairs 1000*500 + 1000*1001/2 = 1,000,500; with 1000 extra keys per row: +1,000,000.
  // FLOPs 4 * 128 * 8 * 2,000,500 * 4 layers at 1e15 * 0.25.
  BatchShape b;
  b.prefills.push_back({1000, 500, true});
  for (const OpCost& op : step_ops(small_model(), Deployment{}, b)) {
    if (std::string(op.name) != "attn_prefill") continue;
    CHECK(op.per_key_flops == 4.0 * 128 * 8 * 1000 * 4);
    const OpTiming t = rf.time_op(op);
    CHECK(t.compute_s == Approx(4.0 * 128 * 8 * 2'000'500 * 4 / 0.25e15));
  }
}

TEST_CASE("roofline: decode attention reads the KV cache at a bandwidth that switches with the batch", "[fidelity]") {
  HardwareSpec hw = round_gpu();
  hw.decode_attention_efficiency = 0.9;
  hw.decode_attention_efficiency_many = 0.5;
  hw.decode_attention_half_seqs = 20;
  // many + (few - many) / (1 + (B/20)^4): B = 20 -> 0.7; B = 40 -> 0.5 + 0.4/17.
  CHECK(hw.decode_kv_efficiency(20) == Approx(0.7));
  CHECK(hw.decode_kv_efficiency(40) == Approx(0.5 + 0.4 / 17));
  CHECK(hw.decode_kv_efficiency(0) == Approx(0.9));
  // Left at 0 the decode efficiencies follow memory_efficiency (0.5 here).
  CHECK(round_gpu().decode_kv_efficiency(100) == Approx(0.5));

  const RooflineCostModel rf(small_model(), hw, Deployment{});
  OpCost attn{"attn_decode", OpKind::attention};
  attn.bytes_read = 1.4e9;  // / (2e12 * 0.7) = 1 ms at 20 sequences
  attn.rows = 20;
  CHECK(rf.time_op(attn).time_s == Approx(1e-3));
}

TEST_CASE("roofline: elementwise ops stream at the elementwise efficiency", "[fidelity]") {
  HardwareSpec hw = round_gpu();
  hw.elementwise_efficiency = 0.25;
  const RooflineCostModel rf(small_model(), hw, Deployment{});
  OpCost add{"add", OpKind::elementwise};
  add.flops = 1e9;          // never timed
  add.bytes_read = 2e8;
  add.bytes_written = 1e8;  // 3e8 / (2e12 * 0.25) = 0.6 ms
  CHECK(rf.time_op(add).time_s == Approx(0.6e-3));
  CHECK(rf.time_op(add).bound == "memory");
}

}  // namespace roofline_test
