#include "sim/report/kernel_fit_hardware_writer.h"
#include "sim/core/text.h"

#include <cstdio>
#include <set>
#include <sstream>

namespace servesim {

namespace {

constexpr const char* kKernelFitBegin = "# --- servesim calibrate --from-kernels: begin";
constexpr const char* kKernelFitEnd = "# --- servesim calibrate --from-kernels: end";
// Both calibrations' markers start so.
constexpr const char* kAnyBegin = "# --- servesim calibrate";

bool is_end_marker(const std::string& line) {
  return line.rfind(kAnyBegin, 0) == 0 && line.find(": end") != std::string::npos;
}

// Enough digits to reproduce the fit.
std::string fit_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string percent_1dp(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * e);
  return buf;
}

}  // namespace

void write_kernel_fit_hardware(std::ostream& out, const std::string& input_yaml_text, const TableFitResult& result,
                               const std::string& command) {
  std::set<std::string> written;
  for (const auto& [key, value] : result.values()) written.insert(key);
  std::istringstream in(input_yaml_text);
  bool inside_block = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kAnyBegin, 0) == 0 && !is_end_marker(line)) inside_block = true;
    const bool skip = inside_block || written.count(yaml_top_level_key(line)) > 0;
    if (is_end_marker(line)) inside_block = false;
    if (!skip) out << line << "\n";
  }
  out << kKernelFitBegin << " (generated; re-run to refresh) ---\n";
  out << "# " << command << "\n";
  out << "# The roofline's parameters fitted to the measured kernel tables of " << result.set_name
      << " (data/kernels/, NVIDIA aiconfigurator, Apache-2.0) by least squares on relative error, each op\n"
      << "# family on its own table's rows with the roofline's formula for that op (docs/cost-model.md, \"The roofline\n"
      << "# from the kernel tables\"). Error = roofline / measured - 1 over the rows, after the fit.\n";
  for (const TableFitFamily& f : result.families) {
    out << "#   " << f.name << ": " << f.rows << " rows of " << f.rows_from << "; |error| median "
        << percent_1dp(f.median_abs_error) << ", p90 " << percent_1dp(f.p90_abs_error) << ", max " << percent_1dp(f.max_abs_error)
        << "; median signed " << (f.median_signed_error >= 0 ? "+" : "") << percent_1dp(f.median_signed_error) << "\n";
    if (!f.values.empty()) {
      out << "#     fits:";
      for (const auto& [key, value] : f.values) out << " " << key;
      out << "\n";
    }
  }
  for (const std::string& why : result.derived_why) out << "#   " << why << "\n";
  for (const auto& [key, value] : result.values()) out << key << ": " << fit_number(value) << "\n";
  out << kKernelFitEnd << " ---\n";
}

}  // namespace servesim
