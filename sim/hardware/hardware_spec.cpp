#include "sim/hardware/hardware_spec.h"

#include <cmath>

namespace servesim {

double HardwareSpec::peak_flops(Dtype math) const {
  switch (math) {
    case Dtype::bf16: return peak_flops_bf16;
    // A format without tensor-core support is computed in bf16 (dequantise, then bf16 MMA).
    case Dtype::fp8: return peak_flops_fp8 > 0 ? peak_flops_fp8 : peak_flops_bf16;
    case Dtype::int8: return peak_flops_int8 > 0 ? peak_flops_int8 : peak_flops_bf16;
    // No serving kernel uses int4 tensor cores; int4 weights are dequantised to bf16.
    case Dtype::int4: return peak_flops_bf16;
  }
  return peak_flops_bf16;
}

double HardwareSpec::decode_kv_efficiency(double seqs) const {
  const double few = decode_attention_efficiency > 0 ? decode_attention_efficiency : memory_efficiency;
  const double many = decode_attention_efficiency_many > 0 ? decode_attention_efficiency_many : few;
  if (!(decode_attention_half_seqs > 0)) return few;
  // A smooth switch between two kernel regimes: the fourth power keeps it sharp (the
  // H200 measurements move from one to the other between 16 and 32 sequences).
  const double x = seqs / decode_attention_half_seqs;
  return many + (few - many) / (1.0 + x * x * x * x);
}

double HardwareSpec::elementwise_bandwidth_efficiency() const {
  return elementwise_efficiency > 0 ? elementwise_efficiency : memory_efficiency;
}

}  // namespace servesim
