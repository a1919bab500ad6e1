#include "sim/hardware/hardware_spec.h"

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

}  // namespace servesim
