// `servesim calibrate --hardware H --model M --measurements FILE.csv [-o OUT.yaml]`: fits
// the roofline parameters of a hardware profile to measured step and kernel times
// (sim/study/roofline_calibration.h) and writes the calibrated profile, with every row's
// measured / predicted / error in its comments (sim/report/calibration_report.h,
// docs/cost-model.md section 5).
#include <ostream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/calibration_report.h"
#include "sim/study/roofline_calibration.h"

namespace po = boost::program_options;

namespace servesim::cli {

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
  MeasuredFitRequest request;
  request.hardware = hardware;
  request.model = model;
  request.measurements_path = measurements;
  request.fit_max_prefill_tokens = max_prefill;
  request.fit_max_context_tokens = max_context;
  const MeasuredFitStudy study = calibrate_to_measurements(request);
  emit_fitted_profile(measured_fit_profile(request, study), output,
                      [&](std::ostream& to) { print_measured_fit(study.result, to); }, out, err);
  return 0;
}

}  // namespace servesim::cli
