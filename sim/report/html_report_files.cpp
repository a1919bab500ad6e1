#include "sim/report/html_report_files.h"

#include <filesystem>
#include <ostream>

#include "sim/report/atomic_write.h"
#include "sim/report/html_report.h"

namespace fs = std::filesystem;

namespace servesim {

namespace {

// A run's page leaves out the sections whose files the run did not write: say which, and
// the output key that writes each, rather than let a missing chart pass unnoticed.
std::string html_report_missing_sections(const fs::path& folder) {
  if (fs::exists(folder / "sweep.json")) return "";
  std::string missing;
  if (!fs::exists(folder / "requests.csv"))
    missing = "no latency distributions (no requests.csv: outputs.requests_csv: true writes it)";
  if (!fs::exists(folder / "timeseries.csv"))
    missing += (missing.empty() ? "" : " and ") +
               std::string("no timeline (no timeseries.csv: outputs.timeseries: true writes it)");
  return missing;
}

}  // namespace

HtmlReportFile write_html_report_file(const std::string& dir, std::string out_path,
                                      const nlohmann::ordered_json* context) {
  if (out_path.empty()) out_path = (fs::path(dir) / "report.html").string();
  const std::string page = html_report(dir, context);
  write_file_atomically(out_path, "--out", [&](std::ostream& f) { f << page; });
  HtmlReportFile file{out_path, html_report_missing_sections(fs::path(dir)), ""};
  const fs::path folder(dir);
  if (context == nullptr && !fs::exists(folder / "sweep.json") && !fs::exists(folder / "run_context.json"))
    file.undescribed = "the workload, SLO targets, seed and KV capacity (no run_context.json: outputs.html: true "
                       "writes it; or give --scenario)";
  return file;
}

}  // namespace servesim
