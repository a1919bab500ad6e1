// `servesim calibrate --hardware H --model M --measurements FILE.csv [-o OUT.yaml]`: fits
// the roofline parameters of a hardware profile to measured step and kernel times
// (sim/hardware/calibration.h) and writes the calibrated profile, with every row's
// measured / predicted / error in its comments (docs/cost-model.md section 5).
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/hardware/calibration.h"
#include "sim/report/calibrated_hardware_writer.h"
#include "sim/scenario/measurements_csv.h"
#include "sim/scenario/model_loader.h"

namespace po = boost::program_options;

namespace servesim::cli {

namespace {

void print_summary(std::ostream& os, const CalibrationResult& r) {
  char buf[200];
  os << "row                              measured ms  predicted ms    error  role\n";
  for (const CalibratedRow& row : r.rows) {
    if (row.measurement.kind != MeasurementKind::step) continue;
    std::snprintf(buf, sizeof buf, "%-32s %11.3f %13.3f %+7.1f%%  %s\n",
                  row.measurement.label().c_str(), row.measurement.ms, row.predicted_ms,
                  100 * row.error, row.role == RowRole::fitted ? "fitted" : "held out");
    os << buf;
  }
  const auto line = [&](const char* what, const ErrorSummary& s) {
    if (s.rows == 0) return;
    std::snprintf(buf, sizeof buf, "%s: %d rows, median |error| %.1f%%, max %.1f%%\n", what,
                  s.rows, 100 * s.median_abs, 100 * s.max_abs);
    os << buf;
  };
  line("whole steps fitted", r.fitted_steps);
  line("whole steps held out", r.held_out_steps);
  line("gemm rows", r.summary(MeasurementKind::gemm, RowRole::fitted));
  line("attn_prefill rows", r.summary(MeasurementKind::attn_prefill, RowRole::fitted));
  line("attn_decode rows", r.summary(MeasurementKind::attn_decode, RowRole::fitted));
  for (const auto& b : r.at_bounds) {
    os << "warning: " << b << ": the rows do not pin it down; add gemm and attn_* rows\n";
  }
}

}  // namespace

int calibrate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // Three calibrations share the command: engine overheads from a real benchmark run, and
  // the roofline's parameters from measured step times or from measured kernel tables.
  for (const std::string& a : args) {
    if (a == "--from-benchmark" || a.rfind("--from-benchmark=", 0) == 0) {
      return calibrate_from_benchmark_command(args, out, err);
    }
    if (a == "--from-kernels" || a.rfind("--from-kernels=", 0) == 0) {
      return calibrate_from_kernels_command(args, out, err);
    }
  }
  po::options_description opts("servesim calibrate options");
  std::string hardware, model, measurements, output;
  std::int64_t max_prefill = 0, max_context = 0;
  opts.add_options()
      ("help,h", "show this help")
      ("hardware", po::value(&hardware), "hardware profile to start from (name or YAML path)")
      ("model", po::value(&model), "the model the measurements ran (name, YAML or config.json)")
      ("measurements", po::value(&measurements), "measured times, CSV (scripts/profile_gpu.py writes it)")
      ("output,o", po::value(&output), "write the calibrated profile here (default: standard output)")
      ("fit-max-prefill", po::value(&max_prefill),
       "hold out steps with more prefill tokens than this (they are predicted, not fitted)")
      ("fit-max-context", po::value(&max_context),
       "hold out steps whose decode context per sequence exceeds this");
  po::variables_map vm;
  if (!parse_options(args, opts, po::options_description(), po::positional_options_description(), vm, err)) return 2;
  if (vm.count("help")) {
    out << "usage: servesim calibrate --hardware H --model M --measurements FILE.csv [-o OUT.yaml]\n"
           "       servesim calibrate --from-benchmark BENCH --scenario S [-o ENGINE.yaml]  (--help with it)\n"
           "       servesim calibrate --from-kernels SET --hardware H [-o OUT.yaml]  (--help with it)\n\n"
           "Fits the roofline's efficiency and overhead parameters of a hardware profile to\n"
           "measured times by least squares on relative error, and writes the profile with\n"
           "the fitted values; the rows fitted on, with measured / predicted / error, go into\n"
           "its comments. Datasheet figures are kept. With -o, a summary is printed.\n\n"
        << opts;
    return 0;
  }
  if (hardware.empty() || model.empty() || measurements.empty()) {
    err << "servesim calibrate: --hardware, --model and --measurements are required\n"
           "(servesim calibrate --help lists the options)\n";
    return 2;
  }
  if (max_prefill < 0 || max_context < 0) {
    err << "servesim calibrate: --fit-max-prefill and --fit-max-context must be >= 0\n";
    return 2;
  }
  try {
    const std::string profile_path = hardware_profile_path(hardware);
    std::ifstream profile(profile_path);
    std::stringstream profile_text;
    profile_text << profile.rdbuf();
    const HardwareSpec start = load_hardware(hardware);
    const ModelSpec spec = load_model(model);
    const std::vector<Measurement> rows = read_measurements(measurements);

    CalibrationOptions options;
    if (max_prefill > 0 || max_context > 0) {
      options.fit_step = [=](const Measurement& m) {
        return (max_prefill == 0 || m.prefill_tokens <= max_prefill) &&
               (max_context == 0 || m.decode_context <= max_context);
      };
    }
    CalibrationResult result;
    try {
      result = calibrate(spec, start, rows, options);
    } catch (const ConfigError& e) {
      throw ConfigError(measurements, e.line(), e.key(), e.message());
    }

    CalibrationProvenance prov;
    prov.command = "servesim calibrate --hardware " + hardware + " --model " + model +
                   " --measurements " + measurements;
    if (max_prefill > 0) prov.command += " --fit-max-prefill " + std::to_string(max_prefill);
    if (max_context > 0) prov.command += " --fit-max-context " + std::to_string(max_context);
    prov.measurements_path = measurements;
    prov.model_name = spec.name;
    std::ostringstream yaml;
    write_calibrated_hardware(yaml, profile_text.str(), result, prov);
    return emit_fitted_profile(yaml.str(), output, [&](std::ostream& to) { print_summary(to, result); }, out, err);
  } catch (const ConfigError& e) {
    err << "servesim calibrate: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace servesim::cli
