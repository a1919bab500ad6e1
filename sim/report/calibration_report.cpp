#include "sim/report/calibration_report.h"

#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/report/calibrated_hardware_writer.h"
#include "sim/report/kernel_fit_hardware_writer.h"

namespace servesim {

void print_measured_fit(const CalibrationResult& r, std::ostream& os) {
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
  for (const auto& [what, summary] : calibration_error_summaries(r)) line(what, summary);
  for (const auto& b : r.at_bounds) {
    os << "warning: " << b << ": the rows do not pin it down; add gemm and attn_* rows\n";
  }
}

std::string measured_fit_profile(const MeasuredFitRequest& request, const MeasuredFitStudy& study) {
  CalibrationProvenance provenance;
  provenance.command = study.command;
  provenance.measurements_path = request.measurements_path;
  provenance.model_name = study.model_name;
  std::ostringstream yaml;
  write_calibrated_hardware(yaml, study.profile_text, study.result, provenance);
  return yaml.str();
}

void print_kernel_fit(const TableFitResult& r, std::ostream& out) {
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

std::string kernel_fit_profile(const KernelFitStudy& study) {
  std::ostringstream yaml;
  write_kernel_fit_hardware(yaml, study.profile_text, study.result, study.command);
  return yaml.str();
}

void emit_fitted_profile(const std::string& yaml, const std::string& output,
                         const std::function<void(std::ostream&)>& report, std::ostream& out, std::ostream& err) {
  if (output.empty()) {
    out << yaml;
    report(err);
    return;
  }
  std::ofstream file(output);
  file << yaml;
  file.close();
  if (!file) throw ConfigError("", 0, "", "cannot write " + output);
  report(out);
  out << "wrote " << output << "\n";
}

}  // namespace servesim
