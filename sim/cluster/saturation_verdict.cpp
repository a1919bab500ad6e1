#include "sim/cluster/saturation_verdict.h"

#include <cstdio>

namespace servesim {

std::string saturated_resource(const std::string& by, const StepBoundTime& bound) {
  if (bound.compute_ns > bound.memory_ns) return "compute";
  if (by == "kv_cache") return "kv_memory";
  if (bound.memory_ns > 0) return "memory_bandwidth";
  return "unknown";
}

SaturationVerdict judge_saturation(const SaturationWatch& watch, const SustainedRateMeter& meter, double tolerance,
                                   const StepBoundTime& bound, bool closed_loop) {
  SaturationVerdict v;
  v.sustained = meter.measure(tolerance);
  if (closed_loop) return v;  // it offers what it serves
  const SustainedRate& m = v.sustained;
  v.growing = watch.saturated();
  const bool short_of_offered = (m.long_enough && !m.sustained(tolerance)) || m.plainly_short(tolerance);
  v.saturated = v.growing || short_of_offered;
  v.too_short = !v.saturated && !m.long_enough;
  char buf[320];
  if (v.growing) {
    std::snprintf(buf, sizeof buf, "the backlog grew without bound: %lld requests at the last arrival",
                  static_cast<long long>(watch.excess()));
    v.note = buf;
  } else if (short_of_offered) {
    std::snprintf(buf, sizeof buf,
                  "served %.4g of %.4g req/s offered over the second half of its arrivals (%.3g%% short, "
                  "tolerance %.3g%%)",
                  m.served_per_s, m.offered_per_s, 100 * (1 - m.served_per_s / m.offered_per_s), 100 * tolerance);
    v.note = buf;
  } else if (v.too_short) {
    v.note = m.why_short;
  }
  if (v.saturated) {
    v.by = watch.binding_cause();
    v.resource = saturated_resource(v.by, bound);
  }
  return v;
}

}  // namespace servesim
