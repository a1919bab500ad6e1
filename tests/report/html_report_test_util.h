#pragma once
// What the report tests read from a page: its embedded data, and the DOM headless Chromium
// renders (Debian's `chromium`, installed by scripts/test), with the attributes each chart's
// canvas carries (data-title, data-point-labels, data-slo-lines; sim/report/html_report_page.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace html_report_test_util {

namespace fs = std::filesystem;
using nlohmann::json;
using servesim::testing::read_file;

// The JSON the page draws from.
inline json page_data(const std::string& html) {
  const std::string open = "<script id=\"servesim-data\" type=\"application/json\">";
  const auto begin = html.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = html.find("</script>", begin);
  return json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

// Output of a command and its exit status.
inline std::string capture(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  status = pclose(pipe);
  return out;
}

inline const char* chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(path)) return path;
  return nullptr;
}

// Loads the page in headless Chromium; checks every chart rendered and no error was raised,
// leaves a screenshot beside the page, and returns the rendered DOM ("" without a browser).
inline std::string check_in_browser(const fs::path& page, int charts) {
  const char* browser = chromium();
  if (browser == nullptr) {
    WARN("chromium is not installed (apt-get install chromium): the browser check of " << page << " is skipped");
    return "";
  }
  const std::string flags = " --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars"
                            " --window-size=1200,4000 --virtual-time-budget=5000 ";
  int status = 0;
  const std::string dom = capture(std::string(browser) + flags + "--enable-logging=stderr --v=0 --dump-dom 'file://" +
                                      page.string() + "' 2>" + (page.parent_path() / "console.txt").string(),
                                  status);
  const std::string console = read_file(page.parent_path() / "console.txt");
  INFO("browser console:\n" << console);
  REQUIRE(status == 0);
  CHECK(dom.find("data-charts=\"" + std::to_string(charts) + "\"") != std::string::npos);
  CHECK(dom.find("data-rendered=\"" + std::to_string(charts) + "\"") != std::string::npos);
  CHECK(dom.find("data-errors=\"") == std::string::npos);  // the attribute, not the hook script
  CHECK(console.find("Uncaught") == std::string::npos);
  CHECK(console.find(":ERROR:CONSOLE") == std::string::npos);
  const fs::path shot = page.parent_path() / "report.png";
  capture(std::string(browser) + flags + "--screenshot='" + shot.string() + "' 'file://" + page.string() + "' 2>/dev/null",
          status);
  REQUIRE(status == 0);
  CHECK(fs::file_size(shot) > 20000);  // a blank page is a few kB
  return dom;
}

// The attribute `attr` of the chart canvas titled `title` in a rendered DOM; "" when absent.
inline std::string canvas_attribute(const std::string& dom, const std::string& title, const std::string& attr) {
  const auto at = dom.find("data-title=\"" + title + "\"");
  if (at == std::string::npos) return "";
  const auto open = dom.rfind("<canvas", at), close = dom.find('>', at);
  const std::string tag = dom.substr(open, close - open);
  const auto value = tag.find(" " + attr + "=\"");
  if (value == std::string::npos) return "";
  const auto begin = value + attr.size() + 3;
  return tag.substr(begin, tag.find('"', begin) - begin);
}

// Occurrences of `needle` in `text`.
inline std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// A number as the page's fmt() writes it (sim/report/html_report_page.cpp): whole numbers as
// they are, 1000 and over without decimals, from 1 with 4 significant digits, below with 3.
inline std::string page_number(double v) {
  char buffer[64];
  if (v == static_cast<double>(static_cast<long long>(v))) std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
  else if (std::abs(v) >= 1000) std::snprintf(buffer, sizeof buffer, "%.0f", v);
  else if (std::abs(v) >= 1) std::snprintf(buffer, sizeof buffer, "%#.4g", v);
  else std::snprintf(buffer, sizeof buffer, "%#.3g", v);
  return buffer;
}

// A CSV without quoted cells (sweep.csv of a sweep without errors): its header and rows.
inline std::vector<std::vector<std::string>> read_plain_csv(const fs::path& path) {
  const std::string text = read_file(path);
  REQUIRE(text.find('"') == std::string::npos);
  std::vector<std::vector<std::string>> rows;
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    const std::size_t line_end = text.find('\n', line_start);
    const std::string line = text.substr(line_start, line_end - line_start);
    std::vector<std::string> cells;
    std::size_t cell_start = 0;
    for (std::size_t comma = line.find(','); ; comma = line.find(',', cell_start)) {
      cells.push_back(line.substr(cell_start, comma - cell_start));
      if (comma == std::string::npos) break;
      cell_start = comma + 1;
    }
    rows.push_back(std::move(cells));
    line_start = line_end == std::string::npos ? text.size() : line_end + 1;
  }
  return rows;
}

}  // namespace html_report_test_util
