#pragma once
// One accelerator type: datasheet figures (with their source) plus the efficiency and
// overhead parameters the roofline uses, which `servesim calibrate` fits to measurements.
// docs/cost-model.md section 2 has the formula each parameter enters.
#include <string>

#include "sim/core/time.h"
#include "sim/model/dtype.h"

namespace servesim {

struct HardwareSpec {
  std::string name;
  std::string source;                       // datasheet / measurement the figures come from
  double memory_bytes = 0;                  // device memory per GPU
  double memory_bandwidth_bytes_per_s = 0;  // HBM peak
  double peak_flops_bf16 = 0;               // dense tensor-core peak, FLOP/s
  double peak_flops_fp8 = 0;                // dense; 0 = no fp8 tensor cores (falls back to bf16)
  double peak_flops_int8 = 0;               // dense OP/s
  double interconnect_bandwidth_bytes_per_s = 0;  // per GPU, one direction (NVLink / PCIe)
  double interconnect_latency_s = 0;
  // GPUs that reach one another over the interconnect above: the NVLink domain (8 on
  // HGX/DGX boards; for PCIe cards, the GPUs of one server). A TP, EP or PP group larger
  // than this crosses the network below. 0 = no limit (a profile without the key).
  int interconnect_domain_gpus = 0;
  double network_bandwidth_bytes_per_s = 0;  // per GPU, one direction (InfiniBand / RoCE NIC)
  double network_latency_s = 0;              // per message between GPUs of two machines
  double host_link_bandwidth_bytes_per_s = 0;     // GPU <-> host (PCIe), for swapping
  double price_per_gpu_hour = 0;                  // USD
  // Electrical power of one GPU (power_model.h, docs/energy.md); 0 = not given (a run with
  // `cluster.energy` or `engine.power_cap_w` then refuses the pool).
  double tdp_w = 0;                  // board power at full activity (the datasheet's max TDP)
  double idle_power_w = 0;           // with nothing running
  double memory_power_fraction = 0;  // activity of a kernel streaming at full bandwidth
  // The folder of data/kernels/ holding this GPU's measured kernel tables ("h100_sxm"), or
  // "" when none were measured (then only the roofline can price it).
  std::string kernel_tables;
  // The measured steps `servesim calibrate` fitted this profile's roofline parameters to
  // ("" for a datasheet profile). A pool on a calibrated profile is priced by that
  // roofline unless its scenario names a cost model: the kernel tables would ignore the fit.
  std::string calibrated_from;

  // Roofline parameters (fraction of peak that real kernels reach, fixed overheads).
  double gemm_efficiency = 0.7;       // large GEMMs: fraction of the tensor-core peak
  // Large fp8 GEMMs: fraction of the fp8 peak (0 = as gemm_efficiency). Below the bf16
  // figure on Hopper: the engines' fp8 linear layers quantise their input and reach about
  // half the fp8 peak (data/kernels gemm_perf, docs/cost-model.md section 5).
  double gemm_efficiency_fp8 = 0;
  double attention_efficiency = 0.5;  // prefill attention: fraction of the bf16 peak
  double memory_efficiency = 0.8;     // GEMM weight streaming and other bulk traffic
  double comm_efficiency = 0.7;
  double step_overhead_s = 0;     // per engine step (launch gaps, sampling, scheduling)
  double layer_overhead_s = 0;    // per layer per step (kernels the op graph does not list)
  double kernel_overhead_s = 0;   // per GEMM or attention launch (prologue, ramp, tail)
  // Per attention launch when it differs from kernel_overhead_s (0 = the same): attention
  // kernels plan their work split and reduce split-KV partials, a larger fixed cost than a
  // GEMM's (data/kernels generation_attention_perf, docs/cost-model.md).
  double attention_overhead_s = 0;
  double attention_launch_s() const { return attention_overhead_s > 0 ? attention_overhead_s : kernel_overhead_s; }
  // Prefill attention: every query row costs as much as this many more keys (loading Q,
  // the softmax epilogue, writing the output, the diagonal tiles of causal masking).
  double attention_row_overhead_keys = 0;
  // Decode attention streams the KV cache at `decode_attention_efficiency` of the
  // bandwidth with few sequences and `decode_attention_efficiency_many` with many,
  // halfway at `decode_attention_half_seqs` sequences (0 = no switch). 0 efficiencies
  // mean "as memory_efficiency" (and "as the few-sequence value" for the many one).
  double decode_attention_efficiency = 0;
  double decode_attention_efficiency_many = 0;
  double decode_attention_half_seqs = 0;
  // Decode attention: every sequence costs as much as reading this many more keys of its
  // KV (loading the query, writing the output, setting up its blocks; 0 = nothing). The
  // H100 vLLM tables show ~0.025 us per sequence and KV head, about 150 keys' worth.
  double decode_attention_row_overhead_keys = 0;
  // Norms, activations, residual adds, embedding: fraction of the bandwidth they stream
  // at (0 = as memory_efficiency). Below memory_efficiency when the software runs them
  // unfused or in fp32, which moves more bytes than the op graph counts.
  double elementwise_efficiency = 0;

  // Peak FLOP/s for math in the given format (int4/int8 weight-only math runs in bf16
  // unless the hardware has int8 tensor cores and activations are int8).
  double peak_flops(Dtype math) const;
  // Fraction of the bandwidth decode attention reads the KV cache at, for `seqs`
  // sequences in the step: many + (few - many) / (1 + (seqs / half)^4).
  double decode_kv_efficiency(double seqs) const;
  double elementwise_bandwidth_efficiency() const;
  // Whether a group of `gpus` GPUs spans more than one interconnect domain.
  bool crosses_domain(int gpus) const {
    return interconnect_domain_gpus > 0 && gpus > interconnect_domain_gpus;
  }
};

}  // namespace servesim
