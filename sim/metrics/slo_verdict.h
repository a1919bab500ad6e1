#pragma once
// The SLO verdict of a run (docs/metrics.md, "SLO verdict"): each objective of a class's
// `slo:` judged on the class's own statistic, the figure summary.json reports, so a reader
// can check the verdict against the number next to it. Goodput judges requests one by one
// (sim/metrics/slo.h); the verdict judges the class's distribution as the SLO states it.
#include <string>
#include <vector>

#include "sim/metrics/summary.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// One verdict per objective `slo` states, in the order ttft, itl, tpot, e2el; none when it
// states none. An objective is met when its figure is at most its bound. A figure without
// samples (ITL when every output is one token) cannot miss, as in slo_violations; a class
// that completed no request meets none of its objectives.
std::vector<SloObjectiveVerdict> judge_slo(const SloSpec& slo, const SummaryBlock& block);

// The summary.json figure a statistic of a metric reads: "p99_ttft_ms", "mean_itl_ms",
// "max_itl_ms" for `every`.
std::string slo_statistic_field(const std::string& metric, const std::string& stat);

// Sets each class's slo_verdict from its spec, matched by name (classes without one keep none).
void add_slo_verdicts(const std::vector<ClassSpec>& classes, RunSummary& summary);

}  // namespace servesim
