// The roofline's parameters re-derived from the measured kernel tables
// (sim/hardware/kernels/roofline_fit.h, `servesim calibrate --from-kernels`): how well the
// fitted roofline reproduces each table's rows, that the shipped profiles carry exactly
// what the fit gives, and single rows checked against the measured latency.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "cli/cli_test_util.h"
#include "sim/hardware/kernels/gz_csv.h"
#include "sim/hardware/kernels/roofline_fit.h"
#include "sim/hardware/roofline.h"
#include "sim/model/op_graph.h"
#include "sim/scenario/model_loader.h"

namespace roofline_from_tables_test {

using namespace servesim;
using servesim::testing::read_file;
using servesim::testing::run_cli;
using servesim::testing::TempDir;

namespace {

const std::string kRoot = std::string(SERVESIM_SOURCE_DIR) + "/data/kernels/";

// One fit per set for the whole test run: a fit reads ~30k rows and takes a second or two.
const TableFitResult& fitted(const std::string& hardware, const std::string& set) {
  static std::map<std::string, TableFitResult> cache;
  auto it = cache.find(set);
  if (it == cache.end()) it = cache.emplace(set, fit_roofline_to_tables(load_hardware(hardware), kRoot + set, set)).first;
  return it->second;
}

const TableFitFamily& family(const TableFitResult& r, const std::string& name) {
  for (const TableFitFamily& f : r.families)
    if (f.name == name) return f;
  FAIL("no family " << name);
  return r.families.front();
}

// The measured latency (s) of the first row of a table whose named cells all match.
double measured_s(const std::string& path, const std::map<std::string, std::string>& cells) {
  GzCsvReader r(path);
  std::vector<std::string_view> c;
  while (r.next(c)) {
    bool all = true;
    for (const auto& [column, value] : cells) all = all && c[r.column(column)] == value;
    if (all) return r.number(c, r.column("latency")) * 1e-3;
  }
  FAIL("no row in " << path);
  return 0;
}

ModelSpec llama_shape(int heads, int kv_heads) {
  ModelSpec m;
  m.name = "probe";
  m.num_layers = 1;
  m.num_attention_heads = heads;
  m.num_kv_heads = kv_heads;
  m.head_dim = 128;
  m.hidden_size = heads * 128;
  m.intermediate_size = m.hidden_size;
  m.vocab_size = 1024;
  m.max_context_tokens = 1 << 20;
  return m;
}

}  // namespace

TEST_CASE("The roofline fitted to the H100 vLLM tables reproduces each op family's rows", "[roofline_fit]") {
  const TableFitResult& r = fitted("h100-sxm", "h100_sxm/vllm-0.14.0");
  // Median |roofline / measured - 1| over every row of the family. The roofline is one
  // formula per op, so shapes with their own kernel choice (tiny heads, split-KV switches)
  // stay off it; the median says how the bulk sits.
  CHECK(family(r, "gemm").rows == 9240);
  CHECK(family(r, "gemm").median_abs_error < 0.12);
  CHECK(family(r, "attn_decode").rows > 5000);
  CHECK(family(r, "attn_decode").median_abs_error < 0.10);
  CHECK(family(r, "attn_prefill").rows > 5000);
  CHECK(family(r, "attn_prefill").median_abs_error < 0.15);
  CHECK(family(r, "all_reduce").rows == 69);  // 23 message sizes x tp 2, 4, 8; eager rows dropped
  CHECK(family(r, "all_reduce").median_abs_error < 0.12);
  // No family is biased: its median signed error is near zero.
  for (const char* name : {"gemm", "attn_decode", "attn_prefill", "all_reduce"})
    CHECK(std::fabs(family(r, name).median_signed_error) < 0.08);
  // The engine's custom all-reduce starts at ~4-5 us in a CUDA graph (the table's smallest
  // messages: 4.28 us at tp 2 .. 4.75 us at tp 8), not the 25 us of an eager NCCL call.
  CHECK(r.hardware.interconnect_latency_s > 3.5e-6);
  CHECK(r.hardware.interconnect_latency_s < 6e-6);
  // Elementwise kernels stream at what the weight-streaming GEMMs reach, 2.70 TB/s of 3.35.
  CHECK(r.hardware.elementwise_efficiency == Approx(2.70 / 3.35).epsilon(0.01));
  // Five elementwise kernels per layer (two norms, the activation, two residual adds), each
  // at least the set's shortest kernel, 2.46 us.
  CHECK(r.hardware.layer_overhead_s == Approx(5 * 2.46e-6).epsilon(0.01));
  CHECK(r.hardware.step_overhead_s == 0);
}

TEST_CASE("The shipped profiles carry the values the kernel tables give", "[roofline_fit]") {
  const std::pair<const char*, const char*> profiles[] = {{"h100-sxm", "h100_sxm/vllm-0.14.0"},
                                                          {"h200", "h200_sxm/vllm-0.14.0"},
                                                          {"a100-80g-sxm", "a100_sxm/vllm-0.14.0"}};
  for (const auto& [hardware, set] : profiles) {
    INFO(hardware);
    const TableFitResult& r = fitted(hardware, set);
    const HardwareSpec shipped = load_hardware(hardware);
    // The YAML holds 4 significant digits of each value.
    const auto same = [](double a, double b) { return std::fabs(a - b) <= 1e-3 * std::fabs(b) + 1e-12; };
    CHECK(same(shipped.gemm_efficiency, r.hardware.gemm_efficiency));
    CHECK(same(shipped.memory_efficiency, r.hardware.memory_efficiency));
    CHECK(same(shipped.kernel_overhead_s, r.hardware.kernel_overhead_s));
    CHECK(same(shipped.attention_overhead_s, r.hardware.attention_overhead_s));
    CHECK(same(shipped.decode_attention_efficiency, r.hardware.decode_attention_efficiency));
    CHECK(same(shipped.decode_attention_efficiency_many, r.hardware.decode_attention_efficiency_many));
    CHECK(same(shipped.decode_attention_half_seqs, r.hardware.decode_attention_half_seqs));
    CHECK(same(shipped.decode_attention_row_overhead_keys, r.hardware.decode_attention_row_overhead_keys));
    CHECK(same(shipped.attention_efficiency, r.hardware.attention_efficiency));
    CHECK(same(shipped.attention_row_overhead_keys, r.hardware.attention_row_overhead_keys));
    CHECK(same(shipped.interconnect_latency_s, r.hardware.interconnect_latency_s));
    CHECK(same(shipped.comm_efficiency, r.hardware.comm_efficiency));
    CHECK(same(shipped.elementwise_efficiency, r.hardware.elementwise_efficiency));
    CHECK(same(shipped.layer_overhead_s, r.hardware.layer_overhead_s));
    CHECK(shipped.step_overhead_s == 0);
  }
  // The hypothetical H100 with twice the compute keeps the H100's fitted efficiencies.
  const HardwareSpec h100 = load_hardware("h100-sxm");
  const HardwareSpec twice = load_hardware("hypothetical-h100-2x-compute");
  CHECK(twice.peak_flops_bf16 == Approx(2 * h100.peak_flops_bf16));
  CHECK(twice.gemm_efficiency == h100.gemm_efficiency);
  CHECK(twice.attention_overhead_s == h100.attention_overhead_s);
  CHECK(twice.decode_attention_efficiency == h100.decode_attention_efficiency);
  CHECK(twice.decode_attention_row_overhead_keys == h100.decode_attention_row_overhead_keys);
  CHECK(twice.interconnect_latency_s == h100.interconnect_latency_s);
  CHECK(twice.comm_efficiency == h100.comm_efficiency);
  CHECK(twice.layer_overhead_s == h100.layer_overhead_s);
}

TEST_CASE("The fitted H100 roofline prices single measured rows near their latency", "[roofline_fit]") {
  const HardwareSpec hw = load_hardware("h100-sxm");
  const RooflineCostModel roofline(llama_shape(32, 8), hw, Deployment{});
  const std::string set = kRoot + "h100_sxm/vllm-0.14.0/";

  SECTION("a 64 MiB all-reduce at tp 4 and a 256-byte one at tp 2") {
    // 33,554,432 bf16 elements; the ring sends 2 (g - 1) / g of them per GPU.
    OpCost big{"attn_all_reduce", OpKind::communication};
    big.comm_bytes = 2.0 * 3 / 4 * 33554432 * 2;
    const double big_measured = measured_s(set + "custom_allreduce_perf.csv.gz",
                                           {{"num_gpus", "4"}, {"message_size", "33554432"}, {"backend", "vllm_graph"}});
    CHECK(big_measured == Approx(0.321876e-3));
    CHECK(roofline.time_op(big).time_s == Approx(big_measured).epsilon(0.12));
    OpCost small{"attn_all_reduce", OpKind::communication};
    small.comm_bytes = 2.0 * 1 / 2 * 128 * 2;
    const double small_measured = measured_s(set + "custom_allreduce_perf.csv.gz",
                                             {{"num_gpus", "2"}, {"message_size", "128"}, {"backend", "vllm_graph"}});
    CHECK(small_measured == Approx(4.28352e-6));
    CHECK(roofline.time_op(small).time_s == Approx(small_measured).epsilon(0.15));
  }

  SECTION("Llama-3-8B's decode attention: 64 sequences at 4,096 tokens") {
    // KV read: 64 x 4,096 tokens x 8 KV heads x 128 x (K and V) x 2 bytes = 1.07 GB, which
    // the datasheet's 3.35 TB/s reads in 320 us.
    Deployment dep;
    const AttentionKernels kernels(llama_shape(32, 8), dep);
    BatchShape batch;
    batch.decode_seqs = 64;
    batch.decode_context_sum = 64 * 4095;
    const OpCost op = kernels.decode(batch);
    CHECK(op.bytes_read == Approx(64.0 * 4096 * 8 * 128 * 2 * 2).epsilon(0.01));
    const double measured = measured_s(set + "generation_attention_perf.csv.gz",
                                       {{"batch_size", "64"}, {"num_heads", "32"}, {"num_key_value_heads", "8"},
                                        {"kv_cache_dtype", "bfloat16"}, {"step", "4095"}});
    CHECK(measured > 320e-6);  // no kernel beats the bandwidth
    CHECK(roofline.time_op(op).time_s == Approx(measured).epsilon(0.10));
    // 1,024 sequences of 2 tokens read almost nothing (8 MB), yet take 210 us: the cost
    // per sequence (~0.2 us at 8 KV heads) that decode_attention_row_overhead_keys carries.
    batch.decode_seqs = 1024;
    batch.decode_context_sum = 1024;
    const double short_measured = measured_s(set + "generation_attention_perf.csv.gz",
                                             {{"batch_size", "1024"}, {"num_heads", "32"}, {"num_key_value_heads", "8"},
                                              {"kv_cache_dtype", "bfloat16"}, {"step", "1"}});
    CHECK(short_measured == Approx(212.144e-6));
    CHECK(roofline.time_op(kernels.decode(batch)).time_s == Approx(short_measured).epsilon(0.15));
  }
}

TEST_CASE("calibrate --from-kernels writes a profile that loads and replaces its own block", "[roofline_fit][cli]") {
  TempDir dir("roofline-fit");
  const std::string first = (dir.path / "first.yaml").string();
  const std::string second = (dir.path / "second.yaml").string();
  auto r = run_cli("calibrate --from-kernels h100_sxm/vllm-0.14.0 --hardware h100-sxm -o " + first);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("attn_decode") != std::string::npos);
  CHECK(r.output.find("wrote " + first) != std::string::npos);
  // Calibrating its own output again gives one block, the same values.
  r = run_cli("calibrate --from-kernels h100_sxm/vllm-0.14.0 --hardware " + first + " -o " + second);
  REQUIRE(r.exit_code == 0);
  const std::string text = read_file(second);
  const auto begin = text.find("# --- servesim calibrate --from-kernels: begin");
  REQUIRE(begin != std::string::npos);
  CHECK(text.find("# --- servesim calibrate --from-kernels: begin", begin + 1) == std::string::npos);
  CHECK(text.find("\ngemm_efficiency:") == text.rfind("\ngemm_efficiency:"));
  const HardwareSpec a = load_hardware(first), b = load_hardware(second), shipped = load_hardware("h100-sxm");
  CHECK(a.gemm_efficiency == b.gemm_efficiency);
  CHECK(a.interconnect_latency_s == b.interconnect_latency_s);
  CHECK(a.gemm_efficiency == shipped.gemm_efficiency);  // the shipped profile is this output
  CHECK(a.peak_flops_bf16 == shipped.peak_flops_bf16);  // datasheet lines kept

  r = run_cli("calibrate --from-kernels h100_sxm/vllm-9.9 --hardware h100-sxm");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("no kernel-table set 'h100_sxm/vllm-9.9'") != std::string::npos);
  r = run_cli("calibrate --from-kernels h100_sxm/vllm-0.14.0");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--hardware") != std::string::npos);
}

}  // namespace roofline_from_tables_test
