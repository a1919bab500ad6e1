#pragma once
// Writes the hardware YAML that `servesim calibrate` produces: the input profile's lines
// (datasheet figures and their comments) kept as they are, minus the keys the fit set and
// any block an earlier calibration wrote; then one marked block with the fitted keys and,
// in comments, every row with measured / predicted / error and the fit's median and max,
// and `calibrated_from: FILE`, which makes the fitted roofline price the pools that use the
// profile (resolve_kernel_cost_model). Re-running calibrate on its own output replaces that block.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/hardware/calibration.h"

namespace servesim {

struct CalibrationProvenance {
  std::string command;            // the command line, for the header comment
  std::string measurements_path;  // as the user gave it
  std::string model_name;
};

// The file a hardware name or path refers to (as load_hardware resolves it).
std::string hardware_profile_path(const std::string& name_or_path);

// The error figures every report of a fit gives, in order: the whole steps fitted and held
// out, then the fitted rows of each kernel kind.
std::vector<std::pair<const char*, ErrorSummary>> calibration_error_summaries(const CalibrationResult& result);

// `input_yaml_text`: the text of the profile calibrated from.
void write_calibrated_hardware(std::ostream& out, const std::string& input_yaml_text,
                               const CalibrationResult& result,
                               const CalibrationProvenance& provenance);

}  // namespace servesim
