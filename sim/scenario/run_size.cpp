#include "sim/scenario/run_size.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "sim/scenario/scenario.h"

namespace servesim {

namespace {

std::string number(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// "45 s", "12 minutes", "3.2 hours", "4.1 days", "1.9e+03 years".
std::string wall_text(double s) {
  if (s < 120) return number(s, "%.0f s");
  if (s < 2 * 3600) return number(s / 60, "%.0f minutes");
  if (s < 2 * 86400) return number(s / 3600, "%.1f hours");
  if (s < 2 * 365.25 * 86400) return number(s / 86400, "%.1f days");
  return number(s / (365.25 * 86400), "%.3g years");
}

}  // namespace

RunSizeEstimate estimate_run_size(const Scenario& scenario) {
  // stop.time as seconds; a bool and a double rather than an optional, which GCC's
  // -Wmaybe-uninitialized misreads at -O1.
  const bool time_bounded = scenario.stop.time_ns.has_value();
  const double horizon_s = time_bounded ? static_cast<double>(*scenario.stop.time_ns) / 1e9 : 0.0;
  double by_time = 0;
  bool endless = false;  // a class that arrives until stop.requests says stop
  for (const ClassSpec& c : scenario.workload) {
    if (c.trace || !c.arrival) continue;
    const ArrivalSpec& a = *c.arrival;
    if (a.process == ArrivalSpec::Process::closed) {
      if (!time_bounded) endless = true;
      continue;
    }
    if (!a.stages.empty()) {
      double start_s = 0;
      for (const ArrivalSpec::Stage& stage : a.stages) {
        const double end_s = time_bounded ? std::min(start_s + stage.duration_s, horizon_s) : start_s + stage.duration_s;
        by_time += stage.rate_per_s * std::max(0.0, end_s - start_s);
        start_s += stage.duration_s;
      }
    } else if (time_bounded) {
      by_time += a.rate_per_s * horizon_s;
    } else {
      endless = true;
    }
  }
  RunSizeEstimate e;
  const double cap = scenario.stop.requests ? static_cast<double>(*scenario.stop.requests)
                                            : std::numeric_limits<double>::infinity();
  if (endless || cap <= by_time) {
    e.requests = scenario.stop.requests ? cap : by_time;
    e.bound = "stop.requests";
  } else {
    e.requests = by_time;
    e.bound = time_bounded ? "the arrival rates over stop.time " + number(horizon_s, "%.6g") + " s"
                        : "the arrival stages' rates and lengths";
  }
  e.wall_s = e.requests / kSimulatedRequestsPerWallSecond;
  return e;
}

std::string long_run_warning(const Scenario& scenario) {
  const RunSizeEstimate e = estimate_run_size(scenario);
  if (!(e.wall_s > kLongRunWallSeconds)) return "";
  return "warning: this run simulates about " + number(e.requests, "%.3g") + " requests (set by " + e.bound +
         "); at roughly " + number(kSimulatedRequestsPerWallSecond, "%.0f") +
         " requests per second of wall time (docs/performance.md) it would take about " + wall_text(e.wall_s) +
         ". Lower the rate, stop.requests or stop.time for a run that finishes.";
}

}  // namespace servesim
