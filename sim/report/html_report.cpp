#include "sim/report/html_report.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/scenario/resource_paths.h"
#include "sim/report/html_report_header.h"
#include "sim/report/html_report_page.h"
#include "sim/workload/csv_reader.h"

namespace servesim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Points of a distribution curve: enough for a smooth line at any zoom a page shows, few
// enough that a million-request run's page stays small.
constexpr std::size_t kCdfPoints = 200;
// Timeline points per pool, thinned evenly beyond this.
constexpr std::size_t kTimelinePoints = 2000;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), 0, "", "cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json read_json(const fs::path& path) {
  try {
    return json::parse(read_text(path));
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    throw ConfigError(path.string(), 0, "", std::string("not valid JSON: ") + e.what());
  }
}

// (value, share of requests at or below it) at up to kCdfPoints evenly spaced ranks.
json cdf_points(std::vector<double> values) {
  json out = json::array();
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const std::size_t points = std::min(n, kCdfPoints);
  for (std::size_t i = 0; i < points; ++i) {
    const std::size_t rank = points == 1 ? n - 1 : i * (n - 1) / (points - 1);
    out.push_back({values[rank], static_cast<double>(rank + 1) / static_cast<double>(n)});
  }
  return out;
}

// requests.csv's completed requests: TTFT, TPOT and E2E distributions per class.
json request_distributions(const fs::path& path) {
  CsvReader r(path.string());
  const int cls = r.column("class"), outcome = r.column("outcome"), ttft = r.column("ttft_ms"),
            tpot = r.column("tpot_ms"), e2el = r.column("e2el_ms"), out_tokens = r.column("output_tokens_done");
  std::map<std::string, std::array<std::vector<double>, 3>> by_class;
  while (r.next_row()) {
    if (r.field(outcome) != "completed") continue;
    auto& v = by_class[std::string(r.field(cls))];
    v[0].push_back(r.number(ttft));
    if (r.number(out_tokens) >= 2) v[1].push_back(r.number(tpot));  // one token has no gap
    v[2].push_back(r.number(e2el));
  }
  json out = {{"ttft_ms", json::object()}, {"tpot_ms", json::object()}, {"e2el_ms", json::object()}};
  for (auto& [name, v] : by_class) {
    out["ttft_ms"][name] = cdf_points(std::move(v[0]));
    out["tpot_ms"][name] = cdf_points(std::move(v[1]));
    out["e2el_ms"][name] = cdf_points(std::move(v[2]));
  }
  return out;
}

// timeseries.csv per pool: running sequences and waiting requests summed over its
// replicas, KV occupancy averaged over them, per interval.
json timeline(const fs::path& path) {
  CsvReader r(path.string());
  const int time = r.column("time_s"), pool = r.column("pool"), running = r.column("running_mean"),
            waiting = r.column("waiting_mean"), kv = r.column("kv_occupancy_mean");
  struct Interval {
    double running = 0, waiting = 0, kv = 0;
    int replicas = 0;
  };
  std::map<std::string, std::map<double, Interval>> pools;
  while (r.next_row()) {
    Interval& at = pools[std::string(r.field(pool))][r.number(time)];
    at.running += r.number(running);
    at.waiting += r.number(waiting);
    at.kv += r.number(kv);
    ++at.replicas;
  }
  json out = json::object();
  for (const auto& [name, intervals] : pools) {
    json t = json::array(), run = json::array(), wait = json::array(), occupancy = json::array();
    const std::size_t stride = (intervals.size() + kTimelinePoints - 1) / kTimelinePoints;
    std::size_t i = 0;
    for (const auto& [time_s, at] : intervals) {
      if (i++ % stride != 0) continue;
      t.push_back(time_s);
      run.push_back(at.running);
      wait.push_back(at.waiting);
      occupancy.push_back(100.0 * at.kv / at.replicas);
    }
    out[name] = {{"t", t}, {"running", run}, {"waiting", wait}, {"kv_percent", occupancy}};
  }
  return out;
}

std::string vendored(const std::string& file) {
  return read_text(fs::path(resource_root()) / "vendor" / "chartjs" / file);
}

// Inside <script>, "</" would end the element: JSON text escapes it.
std::string script_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

// The run's context (sim/study/scenario_context.h): `given` when the caller has one, else
// run_context.json or sweep.json's "context"; null when none is known.
json page_context(const fs::path& folder, const json& data, const nlohmann::ordered_json* given) {
  if (given) return json::parse(given->dump());
  if (data["kind"] == "sweep") return data["sweep"].value("context", json());
  if (fs::exists(folder / "run_context.json")) return read_json(folder / "run_context.json");
  return json();
}

}  // namespace

std::string html_report(const std::string& dir, const nlohmann::ordered_json* context) {
  const fs::path folder(dir);
  json data;
  std::string title;
  if (fs::exists(folder / "sweep.json")) {
    data["kind"] = "sweep";
    data["sweep"] = read_json(folder / "sweep.json");
    data["date"] = report_date(folder / "sweep.json");
    title = "sweep of " + data["sweep"].value("scenario", std::string("a scenario"));
  } else if (fs::exists(folder / "summary.json")) {
    data["kind"] = "run";
    data["summary"] = read_json(folder / "summary.json");
    data["date"] = report_date(folder / "summary.json");
    data["distributions"] = fs::exists(folder / "requests.csv") ? request_distributions(folder / "requests.csv") : json();
    data["timeline"] = fs::exists(folder / "timeseries.csv") ? timeline(folder / "timeseries.csv") : json();
    title = "run in " + folder.filename().string();
    if (title == "run in ") title = "run in " + folder.parent_path().filename().string();
  } else {
    throw ConfigError(dir, 0, "RUN_DIR", "holds neither summary.json (a run) nor sweep.json (a sweep)");
  }
  data["context"] = page_context(folder, data, context);
  data["title"] = title;
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>servesim: "
       << html_escape(title) << "</title>\n<style>\n" << kReportStyle << "</style>\n"
       << "<script>\n" << kReportErrorHook << "</script>\n"
       << "<!-- Chart.js 3.9.1 and chartjs-plugin-zoom 2.0.1, MIT licence (vendor/chartjs/ in servesim) -->\n"
       << "<script>\n" << vendored("chart.min.js") << "\n</script>\n<script>\n"
       << vendored("chartjs-plugin-zoom.min.js") << "\n</script>\n</head>\n<body>\n<h1>servesim: "
       << html_escape(title) << "</h1>\n" << report_header_html(data) << "<div id=\"report\"></div>\n"
       << "<script id=\"servesim-data\" type=\"application/json\">" << script_safe(data.dump())
       << "</script>\n<script>\n(function () {\n  'use strict';\n" << kReportScriptCommon << kReportScriptRun
       << kReportScriptSweep << kReportScriptMain << "})();\n</script>\n</body>\n</html>\n";
  return page.str();
}

}  // namespace servesim
