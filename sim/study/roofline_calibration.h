#pragma once
// The roofline calibrations of `servesim calibrate`: a hardware profile's efficiency and
// overhead parameters fitted to measured step and kernel times (sim/hardware/calibration.h),
// or re-derived from a measured kernel-table set (sim/hardware/kernels/roofline_fit.h).
// Each returns what the profile writers of sim/report/ need: the text of the profile it
// started from, the fit, and what made it.
#include <cstdint>
#include <string>

#include "sim/hardware/calibration.h"
#include "sim/hardware/kernels/roofline_fit.h"

namespace servesim {

struct MeasuredFitRequest {
  std::string hardware;           // profile to start from (name or YAML path)
  std::string model;              // the model the measurements ran (name, YAML or config.json)
  std::string measurements_path;  // CSV of measured times
  // Steps with more prefill tokens, or more decode context per sequence, than these are
  // held out (predicted, not fitted); 0 holds none out.
  std::int64_t fit_max_prefill_tokens = 0;
  std::int64_t fit_max_context_tokens = 0;
};

struct MeasuredFitStudy {
  std::string profile_text;  // the profile calibrated from, as its file reads
  CalibrationResult result;
  std::string command;       // the `servesim calibrate` line that makes it
  std::string model_name;
};

// Throws ConfigError for a negative hold-out limit (an option error of --fit-max-prefill or
// --fit-max-context), for a profile, model or measurements file that cannot be loaded; an
// error in the measured rows names the measurements file.
MeasuredFitStudy calibrate_to_measurements(const MeasuredFitRequest& request);

struct KernelFitRequest {
  std::string kernel_set;  // a folder, or GPU/ENGINE-VERSION under data/kernels/
  std::string hardware;    // profile to start from (name or YAML path)
};

struct KernelFitStudy {
  std::string profile_text;  // the profile calibrated from, as its file reads
  TableFitResult result;
  std::string command;       // the `servesim calibrate --from-kernels` line that makes it
};

// Throws ConfigError (key "--from-kernels") when the set is neither a folder nor a set under
// data/kernels/, and for a profile or table that cannot be loaded.
KernelFitStudy calibrate_to_kernel_tables(const KernelFitRequest& request);

}  // namespace servesim
