// `servesim calibrate --from-kernels SET --hardware H [-o OUT.yaml]`: re-derives the
// roofline's parameters of a hardware profile from a measured kernel-table set
// (sim/study/roofline_calibration.h), prints each op family's fit error, and writes the
// profile with the fitted values and their provenance in a marked block
// (sim/report/calibration_report.h).
#include <ostream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/calibration_report.h"
#include "sim/study/roofline_calibration.h"

namespace po = boost::program_options;

namespace servesim::cli {

int calibrate_from_kernels_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim calibrate --from-kernels SET --hardware H [options]");
  std::string set, hardware, output;
  opts.add_options()("help,h", "show this help")
      ("from-kernels", po::value(&set),
       "a kernel-table set: GPU/ENGINE-VERSION under data/kernels (h100_sxm/vllm-0.14.0) or a folder")
      ("hardware", po::value(&hardware), "hardware profile to start from (name or YAML path)")
      ("output,o", po::value(&output), "write the profile here (default: standard output)");
  const char* about =
      "usage: servesim calibrate --from-kernels SET --hardware H [-o OUT.yaml]\n\n"
      "Re-derives the roofline's efficiency, overhead and all-reduce parameters of a hardware\n"
      "profile from measured kernel tables: each op family (GEMM, prefill and decode\n"
      "attention, the engine's all-reduce) fitted to its table's rows with the roofline's\n"
      "formula for it. Datasheet figures are kept; the fit errors go into the profile's\n"
      "comments. A GPU without tables of its own (a hypothetical one) can start from the\n"
      "set of the nearest measured GPU.\n";
  po::variables_map vm;
  if (const auto done = parse_command(args, opts, about, Operands(), vm, out, err)) return *done;
  if (set.empty() || hardware.empty()) {
    err << "servesim calibrate: --from-kernels and --hardware are required (servesim calibrate --help)\n";
    return 2;
  }
  const KernelFitStudy study = calibrate_to_kernel_tables({set, hardware});
  emit_fitted_profile(kernel_fit_profile(study), output, [&](std::ostream& to) { print_kernel_fit(study.result, to); },
                      out, err);
  return 0;
}

}  // namespace servesim::cli
