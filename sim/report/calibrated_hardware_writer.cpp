#include "sim/report/calibrated_hardware_writer.h"

#include <cstdio>
#include <set>
#include <sstream>
#include <vector>

#include "sim/scenario/spec_yaml.h"
#include "sim/core/text.h"

namespace servesim {

namespace {

constexpr const char* kCalibrationBegin = "# --- servesim calibrate: begin";
constexpr const char* kCalibrationEnd = "# --- servesim calibrate: end";

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Enough digits to reproduce the fit, trimmed of trailing zeros.
std::string trimmed_number(double v) {
  std::string s = format("%.4g", v);
  if (s.find('e') != std::string::npos) s = format("%.6f", v);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

const char* role_name(RowRole r) {
  switch (r) {
    case RowRole::fitted: return "fitted";
    case RowRole::held_out: return "held out";
    case RowRole::not_used: return "not used";
  }
  return "";
}

std::string signed_percent_1dp(double e) { return format("%+.1f%%", 100 * e); }

// A double-quoted YAML scalar: any path reads back as written.
std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string hardware_profile_path(const std::string& name_or_path) {
  return resolve_spec_path("configs/hardware", "hardware", name_or_path);
}

std::vector<std::pair<const char*, ErrorSummary>> calibration_error_summaries(const CalibrationResult& result) {
  return {{"whole steps fitted", result.fitted_steps},
          {"whole steps held out", result.held_out_steps},
          {"gemm rows", result.summary(MeasurementKind::gemm, RowRole::fitted)},
          {"attn_prefill rows", result.summary(MeasurementKind::attn_prefill, RowRole::fitted)},
          {"attn_decode rows", result.summary(MeasurementKind::attn_decode, RowRole::fitted)}};
}

void write_calibrated_hardware(std::ostream& out, const std::string& input_yaml_text,
                               const CalibrationResult& result,
                               const CalibrationProvenance& provenance) {
  std::set<std::string> fitted;
  for (const FitStage& s : result.stages) fitted.insert(s.keys.begin(), s.keys.end());

  std::istringstream in(input_yaml_text);
  bool inside_old_block = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kCalibrationBegin, 0) == 0) inside_old_block = true;
    const bool was_inside = inside_old_block;
    if (line.rfind(kCalibrationEnd, 0) == 0) inside_old_block = false;
    if (was_inside || fitted.count(yaml_top_level_key(line)) || yaml_top_level_key(line) == "calibrated_from") continue;
    out << line << "\n";
  }

  out << kCalibrationBegin << " (generated; re-run calibrate to refresh) ---\n";
  out << "# " << provenance.command << "\n";
  out << "# Least squares on relative error (docs/cost-model.md section 5), fitted to "
      << provenance.measurements_path << " with the " << provenance.model_name << " model, in stages:\n";
  for (const FitStage& s : result.stages) {
    out << "#   " << s.name << " (" << s.rows << " rows):";
    for (const auto& k : s.keys) out << " " << k;
    out << "\n";
  }
  for (const FitStage& s : result.stages) {
    for (const auto& k : s.keys) out << k << ": " << trimmed_number(yaml_value(result.hardware, k)) << "\n";
  }
  // Marks the profile as fitted to measured steps, so a scenario that names it is priced
  // by this roofline rather than by the GPU's kernel tables (docs/cost-model.md section 5).
  out << "# Pools on this profile are priced by the fitted roofline unless their scenario names a cost model.\n";
  out << "calibrated_from: " << yaml_quoted(provenance.measurements_path) << "\n";
  out << "#\n# Rows (measured ms, predicted ms, error):\n";
  for (const CalibratedRow& r : result.rows) {
    if (r.measurement.kind == MeasurementKind::ceiling) continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, "#   %-28s %11.4f %11.4f %8s  %s", r.measurement.label().c_str(),
                  r.measurement.ms, r.predicted_ms, signed_percent_1dp(r.error).c_str(), role_name(r.role));
    out << buf << "\n";
  }
  const auto line = [&](const char* what, const ErrorSummary& s) {
    if (s.rows == 0) return;
    out << "# " << what << ": " << s.rows << " rows, median |error| "
        << format("%.1f%%", 100 * s.median_abs) << ", max " << format("%.1f%%", 100 * s.max_abs) << "\n";
  };
  out << "#\n";
  for (const auto& [what, summary] : calibration_error_summaries(result)) line(what, summary);
  for (const auto& b : result.at_bounds) {
    out << "# note: " << b << ": the rows do not pin it down\n";
  }
  out << kCalibrationEnd << " ---\n";
}

}  // namespace servesim
