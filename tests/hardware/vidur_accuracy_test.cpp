// The roofline's per-operator predictions against the per-layer operator times Vidur
// measured on H100 and A100 GPUs (data/profiling/vidur_*_mlp.csv, microsoft/vidur, MIT).
// Vidur timed each operator eagerly from PyTorch; the profiles (configs/hardware/h100-sxm.yaml,
// a100-80g-sxm.yaml) carry the engines' kernels replayed in CUDA graphs, fitted to the
// measured kernel tables (tests/hardware/roofline_from_tables_test.cpp), which launch ~4 us
// sooner per kernel and fuse the norms. So the checks here are: the roofline's form fits
// Vidur's times with Vidur's own least-squares parameters (linear operators within 10%
// median), and the shipped profiles stay within a recorded distance of this eager
// reference. docs/cost-model.md section 5 has the tables printed here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sim/hardware/calibration.h"
#include "sim/hardware/nelder_mead.h"
#include "sim/hardware/roofline.h"
#include "sim/hardware/vidur_table.h"
#include "sim/model/op_graph.h"
#include "sim/scenario/model_loader.h"

namespace vidur_accuracy_test {

using namespace servesim;

namespace {

const char* kLinear[] = {"attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"};
const char* kElementwise[] = {"input_layernorm", "post_attention_layernorm", "mlp_act", "add"};

// Vidur's operator -> ours.
const std::map<std::string, std::string> kOurs = {
    {"attn_pre_proj", "qkv_proj"},     {"attn_post_proj", "o_proj"},
    {"mlp_up_proj", "gate_up_proj"},   {"mlp_down_proj", "down_proj"},
    {"input_layernorm", "input_norm"}, {"post_attention_layernorm", "post_attn_norm"},
    {"mlp_act", "silu_mul"},           {"add", "mlp_residual_add"}};

struct Point {
  std::string op;  // Vidur's name
  OpCost cost;     // our operator, one layer, one GPU
  double measured_ms;
};

// Every (op, tokens) point of one TP degree, with our operator for it.
std::vector<Point> points(const std::string& file, const std::string& model_name, int tp,
                          const std::vector<std::string>& ops) {
  const VidurOpTable t = read_vidur_table(std::string(SERVESIM_SOURCE_DIR) + "/data/profiling/" + file);
  ModelSpec one = load_model(model_name);
  one.num_layers = 1;
  Deployment dep;
  dep.tp = tp;
  std::vector<Point> out;
  for (const std::string& op : ops) {
    for (const auto& [tokens, ms] : t.series.at(tp).at(op)) {
      BatchShape b;
      b.prefills.push_back({static_cast<std::int64_t>(tokens), 0, false});
      for (const OpCost& c : step_ops(one, dep, b))
        if (kOurs.at(op) == c.name) out.push_back({op, c, ms});
    }
  }
  return out;
}

double median_error(const std::vector<Point>& pts, const HardwareSpec& hw, const std::string& only = "") {
  const RooflineCostModel rf(load_model("llama-2-7b"), hw, Deployment{});  // time_op needs no model
  std::vector<double> e;
  for (const Point& p : pts) {
    if (!only.empty() && p.op != only) continue;
    e.push_back((rf.time_op(p.cost).time_s * 1e3 - p.measured_ms) / p.measured_ms);
  }
  return summarize_errors(e).median_abs;
}

std::vector<std::string> names(const char* const* list) { return {list, list + 4}; }

struct Case {
  const char* file;
  const char* model;
  const char* hardware;
  int tp;
};

const Case kCases[] = {
    {"vidur_h100_Llama-2-7b-hf_mlp.csv", "llama-2-7b", "h100-sxm", 1},
    {"vidur_h100_Llama-2-70b-hf_mlp.csv", "llama-2-70b", "h100-sxm", 4},
    {"vidur_a100_Llama-2-7b-hf_mlp.csv", "llama-2-7b", "a100-80g-sxm", 1},
    {"vidur_a100_Meta-Llama-3-8B_mlp.csv", "llama-3-8b", "a100-80g-sxm", 1},
};

// The profile's datasheet figures with HardwareSpec's default roofline parameters.
HardwareSpec datasheet_only(const HardwareSpec& hw) {
  HardwareSpec d;
  d.name = hw.name + " (datasheet only)";
  d.memory_bandwidth_bytes_per_s = hw.memory_bandwidth_bytes_per_s;
  d.peak_flops_bf16 = hw.peak_flops_bf16;
  d.peak_flops_fp8 = hw.peak_flops_fp8;
  return d;
}

}  // namespace

TEST_CASE("vidur accuracy: the table-fitted H100 and A100 profiles against Vidur's eager linear operators - datasheet-only within 20%", "[fidelity]") {
  std::printf("\nroofline vs Vidur, median |error| per operator (linear: QKV, O, gate_up, down)\n");
  std::printf("%-38s %-13s %9s %9s %9s %9s %9s | %9s %11s\n", "file", "profile", "qkv", "o",
              "gate_up", "down", "linear", "datasheet", "elementwise");
  for (const Case& c : kCases) {
    const HardwareSpec hw = load_hardware(c.hardware);
    const auto lin = points(c.file, c.model, c.tp, names(kLinear));
    const auto ew = points(c.file, c.model, c.tp, names(kElementwise));
    const double linear = median_error(lin, hw);
    const double datasheet = median_error(lin, datasheet_only(hw));
    const double elementwise = median_error(ew, hw);
    std::printf("%-38s %-8s tp%-2d", c.file, c.hardware, c.tp);
    for (const char* op : kLinear) std::printf(" %8.1f%%", 100 * median_error(lin, hw, op));
    std::printf(" %8.1f%% | %8.1f%% %10.1f%%\n", 100 * linear, 100 * datasheet, 100 * elementwise);
    INFO(c.file << " tp " << c.tp);
    // The CUDA-graph kernels are faster than eager calls, most at the few-token shapes
    // where the launch dominates: recorded (12-19%), bounded so a regression shows.
    CHECK(linear <= 0.25);
    CHECK(datasheet <= 0.20);
    // PyTorch's unfused norms against the engines' fused ones at the streaming bandwidth of
    // the tables (43-51%); bounded so it cannot get worse unnoticed.
    CHECK(elementwise <= 0.60);
  }
}

TEST_CASE("vidur accuracy: every TP degree of every file - for the record", "[fidelity]") {
  // Not a target: small GEMMs at high TP are a few microseconds, where kernel floors
  // dominate. Checked loosely so a regression still shows.
  std::printf("\nlinear-operator median |error| by TP degree (profile / datasheet only)\n");
  for (const Case& c : kCases) {
    const HardwareSpec hw = load_hardware(c.hardware);
    std::printf("%-38s", c.file);
    for (int tp : {1, 2, 4, 8}) {
      const auto lin = points(c.file, c.model, tp, names(kLinear));
      const double e = median_error(lin, hw);
      std::printf("  tp%d %5.1f%% / %5.1f%%", tp, 100 * e, 100 * median_error(lin, datasheet_only(hw)));
      CHECK(e <= 0.30);
    }
    std::printf("\n");
  }
}

TEST_CASE("vidur accuracy: the roofline's GEMM form fits Vidur's eager operators with their own least squares", "[fidelity]") {
  // TP 1 files of each GPU (and Llama-2-70B at TP 4 for the H100).
  for (const char* gpu : {"h100-sxm", "a100-80g-sxm"}) {
    std::vector<Point> all;
    for (const Case& c : kCases) {
      if (std::string(c.hardware) != gpu) continue;
      const auto p = points(c.file, c.model, c.tp, names(kLinear));
      all.insert(all.end(), p.begin(), p.end());
    }
    const HardwareSpec base = load_hardware(gpu);
    const auto with = [&](const std::vector<double>& x) {
      HardwareSpec h = base;
      h.gemm_efficiency = std::min(1.0, std::exp(x[0]));
      h.memory_efficiency = std::min(1.0, std::exp(x[1]));
      h.kernel_overhead_s = std::exp(x[2]);
      return h;
    };
    const auto objective = [&](const std::vector<double>& x) {
      const RooflineCostModel rf(load_model("llama-2-7b"), with(x), Deployment{});
      double s = 0;
      for (const Point& p : all) {
        const double e = (rf.time_op(p.cost).time_s * 1e3 - p.measured_ms) / p.measured_ms;
        s += e * e;
      }
      return s;
    };
    const auto r = nelder_mead(objective, {std::log(0.7), std::log(0.8), std::log(3e-6)}, 0.3, 3000);
    const HardwareSpec fit = with(r.x);
    std::printf("\n%s least squares: gemm_efficiency %.3f, memory_efficiency %.3f, kernel_overhead_us %.2f; profile: %.2f, %.2f, %.2f\n",
                gpu, fit.gemm_efficiency, fit.memory_efficiency, fit.kernel_overhead_s * 1e6,
                base.gemm_efficiency, base.memory_efficiency, base.kernel_overhead_s * 1e6);
    // The form holds on the eager reference too: within 10% median with its own fit.
    CHECK(median_error(all, fit) <= 0.10);
    // An eager launch costs more than a graph-replayed one: Vidur's fit needs a larger
    // fixed cost per GEMM than the kernel tables do (H100 7.7 vs 3.0 us, A100 8.9 vs 4.0).
    CHECK(fit.kernel_overhead_s > base.kernel_overhead_s + 2e-6);
  }
}

}  // namespace vidur_accuracy_test
