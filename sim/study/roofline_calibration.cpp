#include "sim/study/roofline_calibration.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/scenario/measurements_csv.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/resource_paths.h"
#include "sim/scenario/spec_yaml.h"

namespace servesim {
namespace {

// The text of the hardware profile a name or path refers to, as load_hardware resolves it.
std::string calibrated_profile_text(const std::string& hardware) {
  std::ifstream profile(resolve_spec_path("configs/hardware", "hardware", hardware));
  std::stringstream text;
  text << profile.rdbuf();
  return text.str();
}

}  // namespace

MeasuredFitStudy calibrate_to_measurements(const MeasuredFitRequest& request) {
  if (request.fit_max_prefill_tokens < 0)
    throw option_error("--fit-max-prefill", std::to_string(request.fit_max_prefill_tokens), "must be >= 0");
  if (request.fit_max_context_tokens < 0)
    throw option_error("--fit-max-context", std::to_string(request.fit_max_context_tokens), "must be >= 0");
  MeasuredFitStudy study;
  study.profile_text = calibrated_profile_text(request.hardware);
  const HardwareSpec start = load_hardware(request.hardware);
  const ModelSpec spec = load_model(request.model);
  const std::vector<Measurement> rows = read_measurements(request.measurements_path);
  CalibrationOptions options;
  const std::int64_t max_prefill = request.fit_max_prefill_tokens, max_context = request.fit_max_context_tokens;
  if (max_prefill > 0 || max_context > 0) {
    options.fit_step = [=](const Measurement& m) {
      return (max_prefill == 0 || m.prefill_tokens <= max_prefill) &&
             (max_context == 0 || m.decode_context <= max_context);
    };
  }
  try {
    study.result = calibrate(spec, start, rows, options);
  } catch (const ConfigError& e) {
    // The fit finds what is wrong in a row; the row is the measurements file's.
    throw ConfigError(request.measurements_path, e.line(), e.key(), e.message());
  }
  study.command = "servesim calibrate --hardware " + request.hardware + " --model " + request.model +
                  " --measurements " + request.measurements_path;
  if (max_prefill > 0) study.command += " --fit-max-prefill " + std::to_string(max_prefill);
  if (max_context > 0) study.command += " --fit-max-context " + std::to_string(max_context);
  study.model_name = spec.name;
  return study;
}

KernelFitStudy calibrate_to_kernel_tables(const KernelFitRequest& request) {
  namespace fs = std::filesystem;
  std::string dir = request.kernel_set;
  if (!fs::is_directory(dir)) dir = resource_root() + "/data/kernels/" + request.kernel_set;
  if (!fs::is_directory(dir)) {
    throw ConfigError("", 0, "--from-kernels",
                      "no kernel-table set '" + request.kernel_set +
                          "' (a folder, or GPU/ENGINE-VERSION under data/kernels/, such as h100_sxm/vllm-0.14.0)");
  }
  const fs::path p = fs::path(dir).lexically_normal();
  const std::string name = p.parent_path().filename().string() + "/" + p.filename().string();
  KernelFitStudy study;
  study.profile_text = calibrated_profile_text(request.hardware);
  const HardwareSpec start = load_hardware(request.hardware);
  study.result = fit_roofline_to_tables(start, dir, name);
  study.command = "servesim calibrate --from-kernels " + request.kernel_set + " --hardware " + request.hardware;
  return study;
}

}  // namespace servesim
