// `servesim calibrate --from-kernels SET --hardware H [-o OUT.yaml]`: re-derives the
// roofline's parameters of a hardware profile from a measured kernel-table set
// (sim/hardware/kernels/roofline_fit.h), prints each op family's fit error, and writes the
// profile with the fitted values and their provenance in a marked block.
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/report/calibrated_hardware_writer.h"
#include "sim/scenario/model_loader.h"
#include "sim/report/kernel_fit_hardware_writer.h"
#include "sim/scenario/resource_paths.h"

namespace po = boost::program_options;

namespace servesim::cli {
namespace {

void print_fit(const TableFitResult& r, std::ostream& out) {
  char buf[240];
  out << "family          rows  |error| median    p90     max  fitted\n";
  for (const TableFitFamily& f : r.families) {
    std::string keys;
    for (const auto& [key, value] : f.values) {
      std::snprintf(buf, sizeof buf, "%s%s=%.4g", keys.empty() ? "" : " ", key.c_str(), value);
      keys += buf;
    }
    std::snprintf(buf, sizeof buf, "%-14s %6d  %13.1f%% %6.1f%% %6.1f%%  %s\n", f.name.c_str(), f.rows,
                  100 * f.median_abs_error, 100 * f.p90_abs_error, 100 * f.max_abs_error,
                  keys.empty() ? "(reported, not fitted)" : keys.c_str());
    out << buf;
  }
  for (const std::string& why : r.derived_why) out << why << "\n";
}

}  // namespace

int calibrate_from_kernels_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim calibrate --from-kernels SET --hardware H [options]");
  std::string set, hardware, output;
  opts.add_options()("help,h", "show this help")
      ("from-kernels", po::value(&set),
       "a kernel-table set: GPU/ENGINE-VERSION under data/kernels (h100_sxm/vllm-0.14.0) or a folder")
      ("hardware", po::value(&hardware), "hardware profile to start from (name or YAML path)")
      ("output,o", po::value(&output), "write the profile here (default: standard output)");
  po::variables_map vm;
  if (!parse_options(args, opts, po::options_description(), po::positional_options_description(), vm, err)) return 2;
  if (vm.count("help")) {
    out << "usage: servesim calibrate --from-kernels SET --hardware H [-o OUT.yaml]\n\n"
           "Re-derives the roofline's efficiency, overhead and all-reduce parameters of a hardware\n"
           "profile from measured kernel tables: each op family (GEMM, prefill and decode\n"
           "attention, the engine's all-reduce) fitted to its table's rows with the roofline's\n"
           "formula for it. Datasheet figures are kept; the fit errors go into the profile's\n"
           "comments. A GPU without tables of its own (a hypothetical one) can start from the\n"
           "set of the nearest measured GPU.\n\n"
        << opts;
    return 0;
  }
  if (set.empty() || hardware.empty()) {
    err << "servesim calibrate: --from-kernels and --hardware are required (servesim calibrate --help)\n";
    return 2;
  }
  try {
    namespace fs = std::filesystem;
    std::string dir = set;
    if (!fs::is_directory(dir)) dir = resource_root() + "/data/kernels/" + set;
    if (!fs::is_directory(dir)) {
      err << "servesim calibrate: error: --from-kernels: no kernel-table set '" << set
          << "' (a folder, or GPU/ENGINE-VERSION under data/kernels/, such as h100_sxm/vllm-0.14.0)\n";
      return 2;
    }
    const fs::path p = fs::path(dir).lexically_normal();
    const std::string name = p.parent_path().filename().string() + "/" + p.filename().string();
    const std::string profile_path = hardware_profile_path(hardware);
    std::ifstream profile(profile_path);
    std::stringstream profile_text;
    profile_text << profile.rdbuf();
    const HardwareSpec start = load_hardware(hardware);
    const TableFitResult result = fit_roofline_to_tables(start, dir, name);
    std::ostringstream yaml;
    write_kernel_fit_hardware(yaml, profile_text.str(), result,
                              "servesim calibrate --from-kernels " + set + " --hardware " + hardware);
    return emit_fitted_profile(yaml.str(), output, [&](std::ostream& to) { print_fit(result, to); }, out, err);
  } catch (const ConfigError& e) {
    err << "servesim calibrate: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace servesim::cli
