#pragma once
// The header of `servesim report`'s page (sim/report/html_report.h): what was simulated,
// as static HTML so a saved or printed page reads on its own. From the run's context
// (run_context.json, or sweep.json's "context"; sim/study/scenario_context.h) when the
// folder has one, else from what summary.json's "deployment" says, with a note naming what
// is not known.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace servesim {

// The page's date, "YYYY-MM-DD HH:MM UTC (WHY)": SOURCE_DATE_EPOCH (seconds since 1970)
// when set, the reproducible-builds convention, else when `file` (summary.json or
// sweep.json) was last written, so the page of one folder is the same whenever it is made.
// Throws ConfigError naming SOURCE_DATE_EPOCH when it is set but not a whole number.
std::string report_date(const std::filesystem::path& file);

// The <section id="simulated"> of a page whose data (html_report.cpp) holds "kind", "date",
// and "context" (null when unknown) with "summary" (a run) or "sweep" (a sweep).
std::string report_header_html(const nlohmann::json& data);

std::string html_escape(const std::string& text);

}  // namespace servesim
