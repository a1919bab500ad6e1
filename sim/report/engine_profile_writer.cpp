// The calibrated engine profile: YAML keys plus the fit in comments.
#include "sim/report/engine_profile_writer.h"

#include <cmath>
#include <cstdio>

namespace servesim {
namespace {

void write_set(std::ostream& os, const char* title, const ReplaySet& before, const ReplaySet& after) {
  char line[200];
  std::snprintf(line, sizeof line, "#   %s (%lld requests): figure, measured, before, after (errors)\n", title,
                static_cast<long long>(after.requests));
  os << line;
  for (std::size_t i = 0; i < after.rows.size() && i < before.rows.size(); ++i) {
    const FigureComparison& b = before.rows[i];
    const FigureComparison& a = after.rows[i];
    std::snprintf(line, sizeof line, "#     %-22s %10.3f %10.3f (%+6.1f%%) %10.3f (%+6.1f%%)%s\n", a.figure.c_str(),
                  a.measured, b.simulated, 100 * b.error, a.simulated, 100 * a.error,
                  is_fitted_figure(a.figure) ? "  fitted" : "");
    os << line;
  }
}

}  // namespace

std::string engine_duration_text(Tick ns) {
  char text[40];
  std::snprintf(text, sizeof text, "%.1fus", static_cast<double>(ns) / 1e3);
  return text;
}

void write_engine_profile(std::ostream& os, const OverheadCalibration& fit, const EngineProfileProvenance& p) {
  os << "# Engine overheads fitted to a real benchmark run by\n#   " << p.command << "\n"
     << "# Benchmark: " << p.benchmark << "\n"
     << "# Split: " << fit.split << "\n"
     << "# Fitted knobs:";
  for (const std::string& k : fit.knobs) os << " " << k;
  char line[200];
  std::snprintf(line, sizeof line, "; %d replays; mean squared error of the fitted figures %.4g -> %.4g\n",
                fit.evaluations, fit.objective_before, fit.objective_after);
  os << line;
  write_set(os, "fitted on", fit.fit_before, fit.fit_after);
  write_set(os, "held out", fit.held_out_before, fit.held_out_after);
  os << "# Use it as the pool's engine preset: engine: {preset: THIS_FILE.yaml}\n";
  if (!p.base_preset.empty()) os << "preset: " << p.base_preset << "\n";
  // A knob the benchmark could not pin down is left out: its value would be the start's,
  // dressed as a fit; the preset's own value stands.
  const auto unidentified = [&](const std::string& knob) {
    for (const UnidentifiedKnob& u : fit.unidentified) {
      if (u.name == knob) return &u;
    }
    return static_cast<const UnidentifiedKnob*>(nullptr);
  };
  std::string lines;
  const auto knob_line = [&](const std::string& knob, Tick ns) {
    if (const UnidentifiedKnob* u = unidentified(knob)) {
      os << "# " << knob << " not written: not identifiable from this benchmark (" << u->why << ")\n";
      if (!u->setting.empty()) os << "#   it shows under " << u->setting << "\n";
      return;
    }
    lines += "  " + knob + ": " + engine_duration_text(ns) + "\n";
  };
  knob_line("per_step", fit.fitted.per_step_ns);
  knob_line("per_request", fit.fitted.per_request_ns);
  knob_line("per_token", fit.fitted.per_token_ns);
  if (!lines.empty()) os << "overheads:\n" << lines;
}

}  // namespace servesim
