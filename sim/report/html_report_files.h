#pragma once
// What `servesim report DIR` writes: the page of sim/report/html_report.h, and what it says
// about a run folder whose page lacks sections.
#include <string>

#include <nlohmann/json.hpp>

namespace servesim {

struct HtmlReportFile {
  std::string path;  // where the page was written
  // For a run folder without requests.csv or timeseries.csv: "no latency distributions
  // (...)" and/or "no timeline (...)", naming the output key that writes each; "" for a
  // sweep folder or a run folder with both.
  std::string missing;
  // For a run folder without run_context.json and no context given: "the workload, SLO
  // targets, seed and KV capacity (...)", what the page's header cannot say; "" otherwise.
  std::string undescribed;
};

// Writes html_report(dir, context) to `out_path` (default DIR/report.html), whole or not at
// all. Throws ConfigError naming the folder when it holds no run or sweep, or
// ConfigError(path, 0, "--out", ...) when the page cannot be written.
HtmlReportFile write_html_report_file(const std::string& dir, std::string out_path,
                                      const nlohmann::ordered_json* context = nullptr);

}  // namespace servesim
