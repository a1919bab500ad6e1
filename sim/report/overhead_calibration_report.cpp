#include "sim/report/overhead_calibration_report.h"

#include <cstdio>
#include <ostream>
#include <sstream>

#include "sim/report/atomic_write.h"
#include "sim/report/engine_profile_writer.h"
#include "sim/report/replay_report.h"

namespace servesim {

void print_overhead_fit(const OverheadCalibration& fit, std::ostream& out) {
  out << "split: " << fit.split << "\n";
  out << "overheads    start        fitted\n";
  const auto row = [&](const std::string& knob, Tick start, Tick fitted) {
    out << knob << std::string(13 - knob.size(), ' ') << engine_duration_text(start) << "  ->  ";
    bool identified = true;
    for (const UnidentifiedKnob& u : fit.unidentified) identified = identified && u.name != knob;
    out << (identified ? engine_duration_text(fitted) : std::string("not identifiable")) << "\n";
  };
  row("per_step", fit.start.per_step_ns, fit.fitted.per_step_ns);
  row("per_request", fit.start.per_request_ns, fit.fitted.per_request_ns);
  row("per_token", fit.start.per_token_ns, fit.fitted.per_token_ns);
  out << "(" << fit.evaluations << " replays; mean squared error of the fitted figures " << fit.objective_before
      << " -> " << fit.objective_after << ")\n\nafter the fit:\n";
  print_replay_set(fit.fit_after, out);
  out << "\n";
  print_replay_set(fit.held_out_after, out);
}

namespace {

void print_summary_stage(const SummaryStageResult& b, const SummaryStageResult& a, std::ostream& out) {
  char line[200];
  out << "\n" << a.name << " (" << (a.fitted_on ? "fitted on" : "checked on") << "; " << a.simulated_completed
      << " simulated requests completed" << (a.saturated ? ", saturated" : "") << ")\n";
  out << "  figure                  measured     before  (error)      after  (error)\n";
  for (std::size_t i = 0; i < a.rows.size() && i < b.rows.size(); ++i) {
    std::snprintf(line, sizeof line, "  %-20s %11.3f %10.3f (%+6.1f%%) %10.3f (%+6.1f%%)%s\n", a.rows[i].figure.c_str(),
                  a.rows[i].measured_ms, b.rows[i].simulated_ms, 100 * b.rows[i].error, a.rows[i].simulated_ms,
                  100 * a.rows[i].error, a.rows[i].fitted && a.fitted_on ? "  fitted" : "");
    out << line;
  }
}

}  // namespace

void print_summary_fit(const SummaryCalibration& fit, std::ostream& out) {
  out << "split: " << fit.split << "\n";
  out << "overheads    start        fitted\n";
  const auto row = [&](const std::string& knob, Tick start, Tick fitted) {
    bool asked = false, identified = true;
    for (const std::string& k : fit.knobs) asked = asked || k == knob;
    for (const UnidentifiedKnob& u : fit.unidentified) identified = identified && u.name != knob;
    out << knob << std::string(13 - knob.size(), ' ') << engine_duration_text(start) << "  ->  "
        << (!asked ? std::string("not fitted") : identified ? engine_duration_text(fitted) : "not identifiable") << "\n";
  };
  row("per_step", fit.start.per_step_ns, fit.fitted.per_step_ns);
  row("per_request", fit.start.per_request_ns, fit.fitted.per_request_ns);
  row("per_token", fit.start.per_token_ns, fit.fitted.per_token_ns);
  char line[200];
  std::snprintf(line, sizeof line, "(%d simulations; mean squared error of the fitted figures %.4g -> %.4g)\n",
                fit.evaluations, fit.objective_before, fit.objective_after);
  out << line;
  for (std::size_t k = 0; k < fit.after.size() && k < fit.before.size(); ++k)
    print_summary_stage(fit.before[k], fit.after[k], out);
}

void print_unidentified_knobs(const std::vector<UnidentifiedKnob>& unidentified, const std::string& source,
                              std::ostream& err) {
  for (const UnidentifiedKnob& u : unidentified) {
    err << "servesim calibrate: warning: " << u.name << " is not identifiable from " << source << ": " << u.why
        << "; it is left out of the profile\n";
    if (!u.setting.empty()) err << "  it would show under " << u.setting << "\n";
  }
}

bool print_summary_workload_check(const SummaryWorkloadCheck& check, const std::string& bench_path, bool force,
                                  std::ostream& err) {
  for (const std::string& note : check.notes) err << "servesim calibrate: note: " << note << "\n";
  if (check.mismatches.empty()) return true;
  for (const std::string& m : check.mismatches) {
    err << "servesim calibrate: " << (force ? "warning: " : "") << "the scenario's workload is not the benchmark's: "
        << m << "\n";
  }
  if (force) return true;
  err << "servesim calibrate: " << bench_path << " holds aggregates only, so the workload is the scenario's; "
      << "make it the benchmark's (or --force to fit anyway)\n";
  return false;
}

void print_benchmark_summary_formats(std::ostream& out) {
  out << "aggregates only (calibrate; the same names):\n";
  for (const BenchmarkSummaryFormat& f : benchmark_summary_formats()) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-16s %s\n", f.name, f.about);
    out << line;
  }
}

std::string engine_profile_text(const OverheadCalibration& fit, const std::string& command,
                                const std::string& base_preset, const std::string& benchmark) {
  EngineProfileProvenance provenance;
  provenance.command = command;
  provenance.base_preset = base_preset;
  provenance.benchmark = benchmark;
  std::ostringstream yaml;
  write_engine_profile(yaml, fit, provenance);
  return yaml.str();
}

void emit_engine_profile(const std::string& yaml, const std::string& output, const std::string& benchmark,
                         const std::string& report, std::ostream& out, std::ostream& err) {
  if (output.empty()) {
    out << yaml;
    err << report;
    return;
  }
  write_file_atomically(output, "--output", [&](std::ostream& os) { os << yaml; });
  out << benchmark << "\n" << report << "wrote " << output << "\n";
}

}  // namespace servesim
