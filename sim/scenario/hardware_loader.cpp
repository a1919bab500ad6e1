// load_hardware (declared in model_loader.h): configs/hardware/NAME.yaml. Every key states
// its unit; the loader converts to the SI units of HardwareSpec.
#include "sim/core/errors.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/spec_yaml.h"
#include "sim/core/units.h"

namespace servesim {

namespace {

const std::vector<std::string> kHardwareKeys = {
    "name", "source", "memory_gib", "memory_gb", "memory_bandwidth_tb_s", "peak_tflops_bf16",
    "peak_tflops_fp8", "peak_tops_int8", "interconnect_bandwidth_gb_s",
    "interconnect_latency_us", "interconnect_domain_gpus", "network_bandwidth_gb_s",
    "network_latency_us", "host_link_bandwidth_gb_s", "price_per_gpu_hour",
    "gemm_efficiency", "gemm_efficiency_fp8", "attention_efficiency", "memory_efficiency", "comm_efficiency",
    "step_overhead_us", "layer_overhead_us", "kernel_overhead_us", "attention_overhead_us", "attention_row_overhead_keys",
    "decode_attention_efficiency", "decode_attention_efficiency_many",
    "decode_attention_half_seqs", "decode_attention_row_overhead_keys", "elementwise_efficiency", "kernel_tables",
    "calibrated_from", "tdp_w", "idle_power_w", "memory_power_fraction"};

// A fraction of a datasheet peak: in (0, 1].
double efficiency(const Field& root, const std::string& key, double fallback) {
  const auto f = root.get(key);
  if (!f) return fallback;
  const double v = f->as_double();
  if (!(v > 0 && v <= 1)) f->fail("must be a fraction in (0, 1], got " + f->node().Scalar());
  return v;
}

double non_negative_or(const Field& root, const std::string& key, double fallback) {
  const auto f = root.get(key);
  return f ? f->non_negative_double() : fallback;
}

// tdp_w, idle_power_w and memory_power_fraction come together (docs/energy.md): a power
// model needs all three, and idle must lie below the TDP.
void load_power_figures(const Field& root, HardwareSpec& hw) {
  const auto tdp = root.get("tdp_w");
  const auto idle = root.get("idle_power_w");
  const auto memory = root.get("memory_power_fraction");
  if (!tdp && !idle && !memory) return;
  if (!tdp) (idle ? idle : memory)->fail_at_key("needs 'tdp_w' beside it (the GPU's power at full activity)");
  hw.tdp_w = tdp->positive_double();
  if (!idle) tdp->fail_at_key("needs 'idle_power_w' beside it (the GPU's power with nothing running)");
  hw.idle_power_w = idle->non_negative_double();
  if (!(hw.idle_power_w < hw.tdp_w)) idle->fail("must be below tdp_w (" + tdp->node().Scalar() + "), got " + idle->node().Scalar());
  if (!memory) tdp->fail_at_key("needs 'memory_power_fraction' beside it (the activity of a kernel streaming at full bandwidth)");
  hw.memory_power_fraction = efficiency(root, "memory_power_fraction", 0);
}

}  // namespace

HardwareSpec load_hardware(const std::string& name_or_path) {
  return load_hardware_file(resolve_spec_path("configs/hardware", "hardware", name_or_path));
}

HardwareSpec load_hardware_file(const std::string& path) {
  const SpecFile file(path, kHardwareKeys);
  const Field& root = file.root();
  HardwareSpec hw = file.named_spec<HardwareSpec>();

  // HBM is sold in binary units ("80 GB" is 80 GiB); memory_gb is decimal, for cards
  // quoted that way.
  const auto gib = root.get("memory_gib");
  const auto gb = root.get("memory_gb");
  if (gib && gb) gb->fail_at_key("give memory_gib or memory_gb, not both");
  if (!gib && !gb) root.fail_at_key("missing required key 'memory_gib' (or 'memory_gb')");
  hw.memory_bytes = gib ? gib->positive_double() * kBytesPerGiB : gb->positive_double() * 1e9;

  hw.memory_bandwidth_bytes_per_s = root.require("memory_bandwidth_tb_s").positive_double() * 1e12;
  hw.peak_flops_bf16 = root.require("peak_tflops_bf16").positive_double() * 1e12;
  hw.peak_flops_fp8 = non_negative_or(root, "peak_tflops_fp8", 0) * 1e12;
  hw.peak_flops_int8 = non_negative_or(root, "peak_tops_int8", 0) * 1e12;
  hw.interconnect_bandwidth_bytes_per_s =
      root.require("interconnect_bandwidth_gb_s").non_negative_double() * 1e9;
  hw.interconnect_latency_s = non_negative_or(root, "interconnect_latency_us", 0) * 1e-6;
  // The NVLink domain and the network past it: the domain without a network bandwidth
  // could not price a group across machines, and network figures without a domain would
  // never be used, so the three keys come together or not at all.
  const auto domain = root.get("interconnect_domain_gpus");
  const auto network = root.get("network_bandwidth_gb_s");
  const auto network_latency = root.get("network_latency_us");
  if (domain) {
    const std::int64_t gpus = domain->int_at_least(1);
    if (gpus > (1 << 20)) domain->fail("must be at most 1048576 GPUs, got " + domain->node().Scalar());
    hw.interconnect_domain_gpus = static_cast<int>(gpus);
    if (!network) domain->fail_at_key("needs 'network_bandwidth_gb_s' beside it (the link between machines)");
    hw.network_bandwidth_bytes_per_s = network->positive_double() * 1e9;
    if (!network_latency) domain->fail_at_key("needs 'network_latency_us' beside it");
    hw.network_latency_s = network_latency->non_negative_double() * 1e-6;
  } else if (network || network_latency) {
    (network ? network : network_latency)->fail_at_key("needs 'interconnect_domain_gpus' (the GPUs one interconnect domain holds)");
  }
  hw.host_link_bandwidth_bytes_per_s = non_negative_or(root, "host_link_bandwidth_gb_s", 0) * 1e9;
  hw.price_per_gpu_hour = non_negative_or(root, "price_per_gpu_hour", 0);
  load_power_figures(root, hw);
  if (auto f = root.get("kernel_tables")) {
    hw.kernel_tables = f->as_string();
    if (hw.kernel_tables.empty() || hw.kernel_tables.find('/') != std::string::npos ||
        hw.kernel_tables.find("..") != std::string::npos) {
      f->fail("expected the name of a folder of data/kernels/ (such as h100_sxm), got '" + hw.kernel_tables + "'");
    }
  }
  // Written by `servesim calibrate` in its block: the measurements the roofline was fitted to.
  if (auto f = root.get("calibrated_from")) {
    hw.calibrated_from = f->as_string();
    if (hw.calibrated_from.empty()) f->fail("expected the measurements file the profile was calibrated to, got ''");
  }

  const HardwareSpec defaults;
  hw.gemm_efficiency = efficiency(root, "gemm_efficiency", defaults.gemm_efficiency);
  hw.gemm_efficiency_fp8 = efficiency(root, "gemm_efficiency_fp8", 0);
  hw.attention_efficiency = efficiency(root, "attention_efficiency", defaults.attention_efficiency);
  hw.memory_efficiency = efficiency(root, "memory_efficiency", defaults.memory_efficiency);
  hw.comm_efficiency = efficiency(root, "comm_efficiency", defaults.comm_efficiency);
  hw.step_overhead_s = non_negative_or(root, "step_overhead_us", 0) * 1e-6;
  hw.layer_overhead_s = non_negative_or(root, "layer_overhead_us", 0) * 1e-6;
  hw.kernel_overhead_s = non_negative_or(root, "kernel_overhead_us", 0) * 1e-6;
  hw.attention_overhead_s = non_negative_or(root, "attention_overhead_us", 0) * 1e-6;
  hw.attention_row_overhead_keys = non_negative_or(root, "attention_row_overhead_keys", 0);
  // Absent (0 in HardwareSpec): follow memory_efficiency, as the profile's comments say.
  hw.decode_attention_efficiency = efficiency(root, "decode_attention_efficiency", 0);
  hw.decode_attention_efficiency_many = efficiency(root, "decode_attention_efficiency_many", 0);
  hw.decode_attention_half_seqs = non_negative_or(root, "decode_attention_half_seqs", 0);
  hw.decode_attention_row_overhead_keys = non_negative_or(root, "decode_attention_row_overhead_keys", 0);
  hw.elementwise_efficiency = efficiency(root, "elementwise_efficiency", 0);
  return hw;
}

}  // namespace servesim
