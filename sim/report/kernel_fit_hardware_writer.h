#pragma once
// Writes the hardware YAML that `servesim calibrate --from-kernels` produces: the input
// profile's lines (datasheet figures and their comments) kept as they are, minus the keys
// the fit set and any block an earlier calibration wrote (from kernels or from measured
// steps: both set the roofline's parameters); then one marked block with the values and,
// in comments, each op family's rows and fit error. Re-running replaces the block.
#include <ostream>
#include <string>

#include "sim/hardware/kernels/roofline_fit.h"

namespace servesim {

void write_kernel_fit_hardware(std::ostream& out, const std::string& input_yaml_text, const TableFitResult& result,
                               const std::string& command);

}  // namespace servesim
