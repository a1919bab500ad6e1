#pragma once
// Latency objectives as a run is judged on them (`capacity`, `search`; docs/metrics.md,
// "SLOs and goodput"): "ttft_p99=2s,itl_every=100ms". Each target bounds one summary.json
// figure (p99_ttft_ms, mean_itl_ms, max_itl_ms for `every`, ...) from above.
#include <string>
#include <vector>

#include "sim/metrics/summary.h"
#include "sim/workload/workload_config.h"

namespace servesim {

struct SloTarget {
  std::string metric;  // ttft | itl | tpot | e2el | queue
  std::string stat;    // mean | p50 | p90 | p95 | p99 | p999 | every (the slowest one)
  double bound_ms = 0;

  // The summary.json field: "p99_ttft_ms", "mean_itl_ms", "max_itl_ms" for `every`.
  std::string field() const;
  std::string text() const;  // as written back to users: "ttft_p99<=2000ms"
};

// Parses "METRIC_STAT=DURATION,..." or "METRIC=DURATION" (stated for the p99, as in a
// scenario's `slo:`); STAT as in slo_vocabulary.h ("median", "p99.9" too); a duration needs
// its unit ("2s", "100ms"). Throws option_error("--slo", item, ...) with the accepted
// names.
std::vector<SloTarget> parse_slo_targets(const std::string& text);

// A class's `slo:` block, each bound with its stated statistic (ttft: 2s -> ttft_p99 <= 2 s,
// itl: {every: 50ms} -> itl_every <= 50 ms), the default of `capacity` when no --slo is
// given.
std::vector<SloTarget> slo_targets_from_spec(const SloSpec& slo);

// The targets `block` misses, as "p99_ttft_ms 2150 > 2000". A figure without samples (NaN,
// e.g. ITL when every output is one token) cannot miss.
std::vector<std::string> slo_violations(const std::vector<SloTarget>& targets, const SummaryBlock& block);

// Where objectives are checked: "" is the overall block, else a class.
struct SloScope {
  std::string class_name;
  std::vector<SloTarget> targets;
};

}  // namespace servesim
