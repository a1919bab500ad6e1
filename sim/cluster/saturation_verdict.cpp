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

void name_binding_pool(SaturationVerdict& v, const std::vector<PoolSaturationInput>& pools) {
  if (!v.saturated || pools.empty()) return;
  v.pools.assign(pools.size(), SaturationVerdict::Pool{});
  // The binding pool: with one pool, that pool; else the short pool (its own backlog grew)
  // whose requests inside grew most, else any pool whose requests inside grew, most first.
  // Ties go to the earlier pool (a prefill pool is listed before its decode pool or not).
  int binding = pools.size() == 1 ? 0 : -1;
  bool binding_short = false;
  std::int64_t most = 0;
  for (std::size_t p = 0; p < pools.size() && pools.size() > 1; ++p) {
    const bool is_short = pools[p].watch->saturated();
    const std::int64_t growth = pools[p].watch->inside_growth();
    if (is_short && !binding_short) {
      binding = static_cast<int>(p), binding_short = true, most = growth;
    } else if (is_short == binding_short && growth > most) {
      binding = static_cast<int>(p), most = growth;
    }
  }
  for (std::size_t p = 0; p < pools.size(); ++p) {
    if (static_cast<int>(p) != binding && !pools[p].watch->saturated()) continue;
    v.pools[p].by = pools[p].watch->binding_cause();
    v.pools[p].resource = saturated_resource(v.pools[p].by, pools[p].bound);
  }
  if (binding < 0) {
    v.pool = "unknown";
    return;
  }
  const auto b = static_cast<std::size_t>(binding);
  v.pool = pools[b].name;
  v.by = v.pools[b].by;
  v.resource = v.pools[b].resource;
}

}  // namespace servesim
