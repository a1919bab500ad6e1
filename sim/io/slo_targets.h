#pragma once
// Latency objectives for `servesim capacity` (docs/sweeps.md): "ttft_p99=2s,itl_p99=100ms".
// Each target bounds one summary.json figure (p99_ttft_ms, mean_itl_ms, ...) from above.
#include <string>
#include <vector>

#include "sim/metrics/summary.h"
#include "sim/workload/workload_config.h"

namespace servesim {

struct SloTarget {
  std::string metric;  // ttft | itl | tpot | e2el | queue
  std::string stat;    // mean | p50 | p90 | p95 | p99 | p999
  double bound_ms = 0;

  std::string field() const;  // the summary.json field: "p99_ttft_ms", "mean_itl_ms"
  std::string text() const;   // as written back to users: "ttft_p99<=2000ms"
};

// Parses "METRIC_STAT=DURATION,..." (also "median" for p50); durations as in scenarios
// ("2s", "100ms"). Throws ConfigError("--slo", 0, item, ...) with the accepted names.
std::vector<SloTarget> parse_slo_targets(const std::string& text);

// A class's `slo:` block read as p99 bounds (ttft: 2s -> ttft_p99 <= 2 s), the default of
// `capacity` when no --slo is given.
std::vector<SloTarget> slo_targets_from_spec(const SloSpec& slo);

// The targets `block` misses, as "p99_ttft_ms 2150 > 2000". A figure without samples (NaN,
// e.g. ITL when every output is one token) cannot miss.
std::vector<std::string> slo_violations(const std::vector<SloTarget>& targets, const SummaryBlock& block);

}  // namespace servesim
