#include "sim/study/slo_targets.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/core/errors.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/slo_vocabulary.h"
#include "sim/core/text.h"

namespace servesim {

namespace {

// `queue` is judged by runs only: no class's `slo:` bounds it.
const std::vector<std::string> kMetrics = {"ttft", "itl", "tpot", "e2el", "queue"};

std::string format_ms(double ms) {
  std::ostringstream os;
  os << ms;
  return os.str();
}

SloTarget parse_one(const std::string& item) {
  const auto eq = item.find('=');
  const std::string name = trim_blanks(item.substr(0, eq));
  const std::string usage = "expected METRIC_STAT=DURATION (or METRIC=DURATION for the p99) with METRIC one of ttft, "
                            "itl, tpot, e2el, queue and STAT one of " +
                            std::string(kSloStatisticsHelp) + " (e.g. ttft_p99=2s, itl_every=100ms)";
  if (eq == std::string::npos) throw option_error("--slo", item, usage);
  const auto us = name.find('_');
  SloTarget t;
  t.metric = name.substr(0, us);
  const auto stat = us == std::string::npos ? std::optional<std::string>(kDefaultSloStatistic)
                                            : canonical_slo_statistic(name.substr(us + 1));
  if (std::find(kMetrics.begin(), kMetrics.end(), t.metric) == kMetrics.end() || !stat) {
    // A near miss ("ttft_p99x", "tpt_p99") is named, so the user sees the fix at once.
    std::vector<std::string> names;
    for (const auto& metric : kMetrics) {
      names.push_back(metric);
      for (const auto& s : slo_statistics()) names.push_back(metric + "_" + s);
    }
    const auto near = closest_match(name, names);
    throw option_error("--slo", name, (near ? "unknown objective; did you mean '" + *near + "'? " : "") + usage);
  }
  t.stat = *stat;
  try {
    t.bound_ms = static_cast<double>(parse_slo_bound_ns(item.substr(eq + 1), "", 0, "")) / 1e6;
  } catch (const ConfigError& e) {
    throw option_error("--slo", name, e.message());
  }
  return t;
}

}  // namespace

std::string SloTarget::field() const { return (stat == "every" ? std::string("max") : stat) + "_" + metric + "_ms"; }

std::string SloTarget::text() const { return metric + "_" + stat + "<=" + format_ms(bound_ms) + "ms"; }

std::vector<SloTarget> parse_slo_targets(const std::string& text) {
  std::vector<SloTarget> out;
  std::string::size_type start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (trim_blanks(item).empty()) throw option_error("--slo", text, "has an empty item (two commas in a row?)");
    out.push_back(parse_one(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<SloTarget> slo_targets_from_spec(const SloSpec& slo) {
  std::vector<SloTarget> out;
  auto add = [&](const char* metric, const std::optional<Tick>& ns, const std::string& stat) {
    if (ns) out.push_back({metric, stat, static_cast<double>(*ns) / 1e6});
  };
  add("ttft", slo.ttft_ns, slo.ttft_stat);
  add("itl", slo.itl_ns, slo.itl_stat);
  add("tpot", slo.tpot_ns, slo.tpot_stat);
  add("e2el", slo.e2el_ns, slo.e2el_stat);
  return out;
}

std::vector<std::string> slo_violations(const std::vector<SloTarget>& targets, const SummaryBlock& block) {
  std::vector<std::string> out;
  for (const auto& t : targets) {
    const double v = block.get(t.field());
    if (std::isfinite(v) && v > t.bound_ms) out.push_back(t.field() + " " + format_ms(v) + " > " + format_ms(t.bound_ms));
  }
  return out;
}

}  // namespace servesim
