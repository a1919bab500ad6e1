#pragma once
// What `servesim report DIR` writes: the page of sim/report/html_report.h, and what it says
// about a run folder whose page lacks sections.
#include <string>

namespace servesim {

struct HtmlReportFile {
  std::string path;  // where the page was written
  // For a run folder without requests.csv or timeseries.csv: "no latency distributions
  // (...)" and/or "no timeline (...)", naming the output key that writes each; "" for a
  // sweep folder or a run folder with both.
  std::string missing;
};

// Writes html_report(dir) to `out_path` (default DIR/report.html), whole or not at all.
// Throws ConfigError naming the folder when it holds no run or sweep, or
// ConfigError(path, 0, "--out", ...) when the page cannot be written.
HtmlReportFile write_html_report_file(const std::string& dir, std::string out_path);

}  // namespace servesim
