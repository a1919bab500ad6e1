#include "sim/hardware/kernels/roofline_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <utility>

#include "sim/core/errors.h"
#include "sim/hardware/kernels/gz_csv.h"
#include "sim/hardware/kernels/kernel_tables.h"
#include "sim/hardware/nelder_mead.h"
#include "sim/hardware/roofline.h"
#include "sim/model/op_graph.h"
#include "sim/core/units.h"

namespace servesim {

namespace fs = std::filesystem;

namespace {

// A fitted parameter: its YAML key, its field, its bounds in HardwareSpec units (searched
// in log space between them) and the factor to the YAML's unit.
struct FitParam {
  const char* key;
  double HardwareSpec::*field;
  double lo, hi, yaml_scale, start;
};

const FitParam kGemm[] = {
    {"gemm_efficiency", &HardwareSpec::gemm_efficiency, 0.05, 1.0, 1, 0.7},
    {"memory_efficiency", &HardwareSpec::memory_efficiency, 0.05, 1.0, 1, 0.8},
    {"kernel_overhead_us", &HardwareSpec::kernel_overhead_s, 1e-8, 100e-6, 1e6, 3e-6},
};
const FitParam kPrefill[] = {
    {"attention_efficiency", &HardwareSpec::attention_efficiency, 0.02, 1.0, 1, 0.4},
    {"attention_row_overhead_keys", &HardwareSpec::attention_row_overhead_keys, 0.01, 1e5, 1, 200},
};
const FitParam kDecode[] = {
    {"attention_overhead_us", &HardwareSpec::attention_overhead_s, 1e-8, 200e-6, 1e6, 8e-6},
    {"decode_attention_efficiency", &HardwareSpec::decode_attention_efficiency, 0.02, 1.0, 1, 0.6},
    {"decode_attention_efficiency_many", &HardwareSpec::decode_attention_efficiency_many, 0.02, 1.0, 1, 0.8},
    {"decode_attention_half_seqs", &HardwareSpec::decode_attention_half_seqs, 0.5, 1e4, 1, 32},
    {"decode_attention_row_overhead_keys", &HardwareSpec::decode_attention_row_overhead_keys, 0.01, 1e4, 1, 100},
};
const FitParam kAllReduce[] = {
    {"interconnect_latency_us", &HardwareSpec::interconnect_latency_s, 1e-7, 1e-3, 1e6, 5e-6},
    {"comm_efficiency", &HardwareSpec::comm_efficiency, 0.05, 1.0, 1, 0.7},
};

double fit_value(double x, const FitParam& p) { return bounded_from_real(x, p.lo, p.hi); }
double fit_x(double v, const FitParam& p) { return real_from_bounded(v, p.lo, p.hi); }

// One table row as the roofline sees it: the operator the op graph would list for it (one
// layer, one call) and the measured seconds.
struct Row {
  OpCost op{"", OpKind::gemm};
  double measured_s = 0;
};

// A one-layer model with the table row's heads: the op graph then lists exactly the
// kernel the row timed, with the bytes and FLOPs the roofline prices.
ModelSpec probe_model(int heads, int kv_heads, int head_dim) {
  ModelSpec m;
  m.name = "table-probe";
  m.num_layers = 1;
  m.num_attention_heads = heads;
  m.num_kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.hidden_size = heads * head_dim;
  m.intermediate_size = m.hidden_size;
  m.vocab_size = 1024;
  m.max_context_tokens = 1 << 20;
  return m;
}

Dtype kv_dtype_of(std::string_view cell) { return cell == "fp8" ? Dtype::fp8 : Dtype::bf16; }

struct GemmRows {
  std::vector<Row> bf16, fp8;
};

GemmRows read_gemm(const std::string& path) {
  GemmRows out;
  GzCsvReader r(path);
  const std::size_t dtype = r.column("gemm_dtype"), mc = r.column("m"), nc = r.column("n"), kc = r.column("k"),
                    lat = r.column("latency");
  std::vector<std::string_view> c;
  while (r.next(c)) {
    const bool fp8 = c[dtype] == "fp8";
    if (c[dtype] != "bfloat16" && !fp8) continue;
    const double m = r.non_negative(c, mc), n = r.non_negative(c, nc), k = r.non_negative(c, kc);
    const double latency_s = r.non_negative(c, lat) * kSecondsPerMs;
    if (m < 1 || !(latency_s > 0)) continue;
    // As the op graph lists a linear layer: weights in the GEMM's format, activations
    // read in it too (fp8 GEMMs take fp8 inputs), bf16 output.
    const double w = fp8 ? 1.0 : 2.0;
    Row row;
    row.op = OpCost{"gemm", OpKind::gemm};
    row.op.flops = 2 * m * n * k;
    row.op.bytes_read = n * k * w + m * k * w;
    row.op.bytes_written = m * n * 2;
    row.op.rows = m;
    row.op.gemm_n = n;
    row.op.gemm_k = k;
    row.measured_s = latency_s;
    (fp8 ? out.fp8 : out.bf16).push_back(row);
  }
  return out;
}

struct AttentionRows {
  std::vector<Row> bf16, fp8;
};

// Full-attention rows with head_dim `head_dim` (the only one every set measures); a
// prefill row must have no cached prefix.
AttentionRows read_attention(const std::string& path, bool generation) {
  AttentionRows out;
  if (!fs::exists(path)) return out;
  GzCsvReader r(path);
  const std::size_t b = r.column("batch_size"), isl = r.column("isl"), heads = r.column("num_heads"),
                    kvh = r.column("num_key_value_heads"), d = r.column("head_dim"), kv = r.column("kv_cache_dtype"),
                    step = r.column("step"), lat = r.column("latency");
  std::size_t window = std::string::npos;
  for (std::size_t i = 0; i < r.header().size(); ++i)
    if (r.header()[i] == "window_size") window = i;
  // AttentionKernels per (heads, kv heads, kv dtype), built once.
  std::map<std::tuple<int, int, int>, std::unique_ptr<AttentionKernels>> kernels;
  std::vector<std::string_view> c;
  while (r.next(c)) {
    if (window != std::string::npos && r.non_negative(c, window) != 0) continue;
    const int head_dim = r.whole_number(c, d);
    const int n = r.whole_number(c, heads);
    int n_kv = r.whole_number(c, kvh);
    if (n_kv == 0) n_kv = n;  // aiconfigurator writes 0 for MHA
    if (n_kv > n || n % n_kv != 0) continue;
    const double latency_s = r.non_negative(c, lat) * kSecondsPerMs;
    const auto batch = static_cast<std::int64_t>(r.whole_number(c, b));
    const auto length = static_cast<std::int64_t>(r.whole_number(c, isl));
    const auto cached = static_cast<std::int64_t>(r.whole_number(c, step));
    if (!(latency_s > 0) || batch < 1) continue;
    if (!generation && cached != 0) continue;
    const Dtype kv_dtype = kv_dtype_of(c[kv]);
    auto& slot = kernels[{n, n_kv, kv_dtype == Dtype::fp8 ? 1 : 0}];
    if (!slot) {
      Deployment dep;
      dep.kv = kv_dtype;
      slot = std::make_unique<AttentionKernels>(probe_model(n, n_kv, head_dim), dep);
    }
    BatchShape shape;
    if (generation) {
      // The table's s = isl + step counts the new token; the op graph's context is the
      // tokens already cached (KernelCostModel::decode_attention_seconds reads it the same way).
      shape.decode_seqs = batch;
      shape.decode_context_sum = batch * cached;
    } else {
      for (std::int64_t i = 0; i < batch; ++i) shape.prefills.push_back({length, 0, false});
    }
    Row row;
    row.op = generation ? slot->decode(shape) : slot->prefill(shape);
    row.measured_s = latency_s;
    (kv_dtype == Dtype::fp8 ? out.fp8 : out.bf16).push_back(row);
  }
  return out;
}

// The engine's in-node all-reduce inside a CUDA graph, every tp measured.
std::vector<Row> read_all_reduce(const std::string& path) {
  std::vector<Row> out;
  if (!fs::exists(path)) return out;
  GzCsvReader r(path);
  const std::size_t gpus = r.column("num_gpus"), size = r.column("message_size"), lat = r.column("latency");
  std::size_t source = std::string::npos;
  for (std::size_t i = 0; i < r.header().size(); ++i)
    if (r.header()[i] == "kernel_source" || r.header()[i] == "backend") source = i;
  std::vector<std::string_view> c;
  while (r.next(c)) {
    // aiconfigurator drops the eager rows: a serving engine replays its collectives in a graph.
    if (source != std::string::npos && c[source].find("eager") != std::string_view::npos) continue;
    const double g = r.non_negative(c, gpus), elements = r.non_negative(c, size), latency_s = r.non_negative(c, lat) * kSecondsPerMs;
    if (g < 2 || !(latency_s > 0)) continue;
    Row row;
    row.op = OpCost{"attn_all_reduce", OpKind::communication};
    row.op.comm_bytes = 2.0 * (g - 1) / g * elements * 2.0;  // as ops::all_reduce lists it, bf16
    row.measured_s = latency_s;
    out.push_back(row);
  }
  return out;
}

// The roofline's time for each row under `hw`: one RooflineCostModel prices any
// operator, since an operator's price depends on its own fields and the hardware only
// (all rows are inside one machine).
class Pricer {
 public:
  explicit Pricer(const HardwareSpec& hw) : roofline_(probe_model(32, 8, 128), hw, Deployment{}) {}
  double seconds(const Row& r) const { return roofline_.op_time_s(r.op); }

 private:
  RooflineCostModel roofline_;
};

HardwareSpec fit(HardwareSpec hw, std::span<const FitParam> ps, const std::vector<Row>& rows, const std::string& family) {
  const auto apply = [&](HardwareSpec& h, const std::vector<double>& x) {
    for (std::size_t i = 0; i < ps.size(); ++i) h.*(ps[i].field) = fit_value(x[i], ps[i]);
  };
  const auto objective = [&](const std::vector<double>& x) {
    HardwareSpec h = hw;
    apply(h, x);
    const Pricer pricer(h);
    double sum = 0;
    for (const Row& r : rows) {
      const double e = (pricer.seconds(r) - r.measured_s) / r.measured_s;
      sum += e * e;
    }
    return sum / static_cast<double>(rows.size());
  };
  std::vector<std::vector<double>> starts;
  std::vector<double> x0;
  for (const FitParam& p : ps) x0.push_back(fit_x(p.start, p));
  starts.push_back(x0);
  const NelderMeadResult best = nelder_mead_multistart(objective, starts, 3, "roofline-fit/" + family, 1500);
  apply(hw, best.x);
  return hw;
}

// The elementwise kernels the op graph lists per layer of a dense model.
int elementwise_kernels_per_layer() {
  ModelSpec m = probe_model(32, 8, 128);
  m.num_layers = 2;
  BatchShape batch;
  batch.decode_seqs = 1;
  batch.decode_context_sum = 1;
  int kernels = 0;
  for (const OpCost& op : step_ops(m, Deployment{}, batch))
    if (op.kind == OpKind::elementwise && op.count == m.num_layers) ++kernels;
  return kernels;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

TableFitFamily summarize(const HardwareSpec& hw, const std::string& name, const std::string& rows_from,
                         std::span<const FitParam> ps, const std::vector<Row>& rows) {
  TableFitFamily f;
  f.name = name;
  f.rows_from = rows_from;
  for (const FitParam& p : ps) f.values.emplace_back(p.key, hw.*(p.field) * p.yaml_scale);
  f.rows = static_cast<int>(rows.size());
  std::vector<double> abs_errors, errors;
  const Pricer pricer(hw);
  for (const Row& r : rows) {
    const double e = (pricer.seconds(r) - r.measured_s) / r.measured_s;
    errors.push_back(e);
    abs_errors.push_back(std::fabs(e));
  }
  f.median_abs_error = quantile(abs_errors, 0.5);
  f.p90_abs_error = quantile(abs_errors, 0.9);
  f.max_abs_error = quantile(abs_errors, 1.0);
  f.median_signed_error = quantile(errors, 0.5);
  return f;
}

}  // namespace

std::vector<std::pair<std::string, double>> TableFitResult::values() const {
  std::vector<std::pair<std::string, double>> out;
  for (const TableFitFamily& f : families) out.insert(out.end(), f.values.begin(), f.values.end());
  out.insert(out.end(), derived.begin(), derived.end());
  return out;
}

TableFitResult fit_roofline_to_tables(const HardwareSpec& start, const std::string& set_dir,
                                      const std::string& set_name) {
  TableFitResult result;
  result.set_name = set_name;
  HardwareSpec hw = start;
  const std::string gemm_path = (fs::path(set_dir) / "gemm_perf.csv.gz").string();
  const GemmRows gemm = read_gemm(gemm_path);
  if (gemm.bf16.empty()) throw ConfigError(gemm_path, 0, "gemm_dtype", "no bfloat16 GEMM rows to fit the roofline to");
  const AttentionRows prefill = read_attention((fs::path(set_dir) / "context_attention_perf.csv.gz").string(), false);
  const AttentionRows decode = read_attention((fs::path(set_dir) / "generation_attention_perf.csv.gz").string(), true);
  const std::vector<Row> all_reduce = read_all_reduce((fs::path(set_dir) / "custom_allreduce_perf.csv.gz").string());

  struct Family {
    const char* name;
    const char* rows_from;
    std::span<const FitParam> params;
    const std::vector<Row>* rows;
  };
  const Family fitted[] = {
      {"gemm", "gemm_perf, gemm_dtype bfloat16", kGemm, &gemm.bf16},
      {"attn_decode", "generation_attention_perf, kv bfloat16, full attention", kDecode, &decode.bf16},
      {"attn_prefill", "context_attention_perf, kv bfloat16, no prefix, full attention", kPrefill, &prefill.bf16},
      {"all_reduce", "custom_allreduce_perf, CUDA-graph rows, tp 2/4/8", kAllReduce, &all_reduce},
  };
  for (const Family& f : fitted) {
    if (f.rows->empty()) continue;
    hw = fit(hw, f.params, *f.rows, f.name);
  }
  // Norms and activations stream at what the weight-streaming GEMMs reach (the `kernels`
  // model's rule, KernelTables::streaming_bytes_per_s).
  KernelTableQuery query;
  const auto tables = load_kernel_tables(set_dir, set_name, query);
  if (tables->streaming_bytes_per_s > 0 && hw.memory_bandwidth_bytes_per_s > 0) {
    hw.elementwise_efficiency = tables->streaming_bytes_per_s / hw.memory_bandwidth_bytes_per_s;
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "elementwise_efficiency = %.3f: the median bandwidth of the bf16 GEMMs that only stream "
                  "weights (m <= 8, >= 16M weights), %.2f TB/s, over the datasheet's %.2f TB/s",
                  hw.elementwise_efficiency, tables->streaming_bytes_per_s / 1e12, hw.memory_bandwidth_bytes_per_s / 1e12);
    result.derived.emplace_back("elementwise_efficiency", hw.elementwise_efficiency);
    result.derived_why.push_back(buf);
  }
  // The tables time every kernel inside a CUDA graph and none takes less than the set's
  // shortest; the roofline times the per-layer norms, activation and residual adds by
  // their bytes alone, so each layer adds that floor once per such kernel, as the `kernels`
  // model floors them. The engine's CPU time per step is the engine profile's
  // (engine.overheads), not the GPU's, as under the `kernels` model.
  if (tables->min_kernel_s > 0) {
    const int per_layer = elementwise_kernels_per_layer();
    hw.layer_overhead_s = per_layer * tables->min_kernel_s;
    hw.step_overhead_s = 0;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "layer_overhead_us = %.3g: the %d elementwise kernels of a layer (norms, activation, residual adds) "
                  "x the shortest kernel of the set, %.3g us; step_overhead_us = 0: CPU time per step is the "
                  "engine's (engine.overheads)",
                  hw.layer_overhead_s * 1e6, per_layer, tables->min_kernel_s * 1e6);
    result.derived.emplace_back("layer_overhead_us", hw.layer_overhead_s * 1e6);
    result.derived.emplace_back("step_overhead_us", 0.0);
    result.derived_why.push_back(buf);
  }
  for (const Family& f : fitted) {
    if (f.rows->empty()) continue;
    result.families.push_back(summarize(hw, f.name, f.rows_from, f.params, *f.rows));
  }
  if (!gemm.fp8.empty())
    result.families.push_back(summarize(hw, "gemm_fp8", "gemm_perf, gemm_dtype fp8 (not fitted: gemm_efficiency_fp8 kept)", {}, gemm.fp8));
  if (!decode.fp8.empty())
    result.families.push_back(summarize(hw, "attn_decode_fp8", "generation_attention_perf, kv fp8 (not fitted)", {}, decode.fp8));
  result.hardware = hw;
  return result;
}

}  // namespace servesim
