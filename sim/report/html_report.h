#pragma once
// One self-contained HTML page for a run folder or a sweep folder (`servesim report`,
// `outputs.html`): interactive charts (hover, wheel or drag to zoom, double-click to reset,
// click a legend entry to hide its series) drawn by Chart.js, inlined from vendor/chartjs/
// with its licence, so the file opens anywhere without a network.
//
// A run folder (summary.json, requests.csv, timeseries.csv when written) gets the TTFT,
// TPOT and E2E distributions per class, the latency attribution, the batch / KV / queue
// timeline per pool, cost per token and SLO goodput. A sweep folder (sweep.json) gets the
// latency/throughput trade-off curves, one series per value of the other axes, the Pareto
// front drawn larger and saturated points hollow.
#include <string>

namespace servesim {

// The page for `dir`. Throws ConfigError naming the folder when it holds neither
// summary.json nor sweep.json, or a file there cannot be read.
std::string html_report(const std::string& dir);

}  // namespace servesim
