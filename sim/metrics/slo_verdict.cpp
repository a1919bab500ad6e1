#include "sim/metrics/slo_verdict.h"

#include <cmath>
#include <limits>
#include <optional>

namespace servesim {

std::string slo_statistic_field(const std::string& metric, const std::string& stat) {
  return (stat == "every" ? std::string("max") : stat) + "_" + metric + "_ms";
}

std::vector<SloObjectiveVerdict> judge_slo(const SloSpec& slo, const SummaryBlock& block) {
  std::vector<SloObjectiveVerdict> out;
  const bool any_completed = block.get("completed") > 0;
  auto judge = [&](const char* metric, const std::optional<Tick>& bound_ns, const std::string& stat) {
    if (!bound_ns) return;
    SloObjectiveVerdict v;
    v.objective = std::string(metric) + "_" + stat;
    v.field = slo_statistic_field(metric, stat);
    v.target_ms = static_cast<double>(*bound_ns) / 1e6;
    v.value_ms = any_completed ? block.get(v.field) : std::numeric_limits<double>::quiet_NaN();
    v.met = any_completed && (!std::isfinite(v.value_ms) || v.value_ms <= v.target_ms);
    out.push_back(std::move(v));
  };
  judge("ttft", slo.ttft_ns, slo.ttft_stat);
  judge("itl", slo.itl_ns, slo.itl_stat);
  judge("tpot", slo.tpot_ns, slo.tpot_stat);
  judge("e2el", slo.e2el_ns, slo.e2el_stat);
  return out;
}

void add_slo_verdicts(const std::vector<ClassSpec>& classes, RunSummary& summary) {
  for (const ClassSpec& c : classes)
    for (auto& [name, block] : summary.classes)
      if (name == c.name) block.slo_verdict = judge_slo(c.slo, block);
}

}  // namespace servesim
