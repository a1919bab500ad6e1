#pragma once
// The words of an SLO, shared by the scenario's `slo:` blocks, `capacity`/`search --slo`
// and `run --goodput` (docs/metrics.md, "SLOs and goodput"): a metric (ttft, tpot, itl,
// e2el), a statistic (p50, p90, p95, p99, p999, mean, or every) and a bound that always
// carries a unit.
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

// The metrics a class's `slo:` may bound, in the order they are written back.
const std::vector<std::string>& slo_metrics();

// The statistics in their canonical spelling: p50, p90, p95, p99, p999, mean, every.
const std::vector<std::string>& slo_statistics();

// The statistic a bound is stated for when none is named.
inline constexpr const char* kDefaultSloStatistic = "p99";

// The canonical spelling of `text`: also "median" for p50 and "p99.9" for p999; nullopt for
// anything else.
std::optional<std::string> canonical_slo_statistic(const std::string& text);

// The statistics as users may write them, for error messages.
inline constexpr const char* kSloStatisticsHelp = "p50 (or median), p90, p95, p99, p99.9 (or p999), mean, every";

// A bound in nanoseconds, > 0 and with a unit. A bare number is refused (as seconds it
// would turn a meant "ttft: 200" ms into 200 s): the message names the fix, "write 200ms or
// 200s". Throws ConfigError(file, line, key, ...).
Tick parse_slo_bound_ns(const std::string& text, const std::string& file, int line, const std::string& key);

}  // namespace servesim
