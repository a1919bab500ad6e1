#pragma once
// One accelerator type: datasheet figures (with their source) plus the efficiency and
// overhead parameters the roofline uses, which `servesim calibrate` fits to measurements.
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
  double host_link_bandwidth_bytes_per_s = 0;     // GPU <-> host (PCIe), for swapping
  double price_per_gpu_hour = 0;                  // USD

  // Roofline parameters (fraction of peak that real kernels reach, fixed overheads).
  double gemm_efficiency = 0.7;
  double attention_efficiency = 0.5;
  double memory_efficiency = 0.8;
  double comm_efficiency = 0.7;
  double step_overhead_s = 0;     // per engine step (launch gaps, sampling, scheduling)
  double layer_overhead_s = 0;    // per layer per step (kernel launches not hidden)

  // Peak FLOP/s for math in the given format (int4/int8 weight-only math runs in bf16
  // unless the hardware has int8 tensor cores and activations are int8).
  double peak_flops(Dtype math) const;
};

}  // namespace servesim
