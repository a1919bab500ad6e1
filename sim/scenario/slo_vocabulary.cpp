#include "sim/scenario/slo_vocabulary.h"

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/scenario/duration.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/core/text.h"

namespace servesim {

namespace {

// True when `text` reads as a plain number (no unit at all): the one form that parses as a
// duration yet says nothing about its scale.
bool is_bare_number(const std::string& text) {
  if (text.empty()) return false;
  const char last = text.back();
  return ((last >= '0' && last <= '9') || last == '.') && parse_duration_seconds(text).has_value();
}

}  // namespace

const std::vector<std::string>& slo_metrics() {
  static const std::vector<std::string> metrics = {"ttft", "tpot", "itl", "e2el"};
  return metrics;
}

const std::vector<std::string>& slo_statistics() {
  static const std::vector<std::string> stats = {"p50", "p90", "p95", "p99", "p999", "mean", "every"};
  return stats;
}

std::optional<std::string> canonical_slo_statistic(const std::string& text) {
  if (text == "median") return std::string("p50");
  if (text == "p99.9") return std::string("p999");
  const auto& stats = slo_statistics();
  if (std::find(stats.begin(), stats.end(), text) != stats.end()) return text;
  return std::nullopt;
}

Tick parse_slo_bound_ns(const std::string& raw, const std::string& file, int line, const std::string& key) {
  const std::string text = trim_blanks(raw);
  if (is_bare_number(text))
    throw ConfigError(file, line, key,
                      "'" + text + "' has no unit: write " + text + "ms or " + text + "s (an SLO bound needs its unit)");
  const Tick ns = parse_duration(text, file, line, key);
  if (ns <= 0) throw ConfigError(file, line, key, "an SLO must be > 0, got " + text);
  return ns;
}

}  // namespace servesim
