#pragma once
// One self-contained HTML page for a run folder or a sweep folder (`servesim report`,
// `outputs.html`): interactive charts (hover, wheel or drag to zoom, double-click to reset,
// click a legend entry to hide its series) drawn by Chart.js, inlined from vendor/chartjs/
// with its licence, so the file opens anywhere without a network.
//
// Every page opens with what was simulated (sim/report/html_report_header.h). A run folder
// (summary.json, requests.csv, timeseries.csv when written) gets the SLO verdict per class, the TTFT,
// TPOT and E2E distributions per class, the latency attribution, the batch / KV / queue
// timeline per pool, cost per token and SLO goodput; each class's SLO targets are dashed
// lines on its distributions. A sweep folder (sweep.json) gets its table with the SLO verdict
// per point; when no axis touches the workload (a configuration swept at fixed offered load)
// each latency, the cost per 1M output tokens and the SLO attainment against the first axis,
// each point labelled with its value; and the latency/throughput trade-off curves against the
// requests served per second over the arrival window (not diluted by the drain), each point
// labelled with its axis values, one series per value of the other axes, the SLO targets as
// lines, the Pareto front drawn larger and saturated points hollow.
#include <string>

#include <nlohmann/json.hpp>

namespace servesim {

// The page for `dir`, its header from `context` (sim/study/scenario_context.h) when given,
// else from the folder (run_context.json, sweep.json's "context"). Throws ConfigError naming
// the folder when it holds neither summary.json nor sweep.json, or a file there cannot be read.
std::string html_report(const std::string& dir, const nlohmann::ordered_json* context = nullptr);

}  // namespace servesim
