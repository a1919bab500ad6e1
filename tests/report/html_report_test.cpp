// `servesim report` and `outputs.html`: one self-contained page whose embedded data is the
// run's own (checked against summary.json and sweep.json), and which a real browser renders:
// headless Chromium (Debian's `chromium`, installed by scripts/test) loads it, every chart
// draws and no script error is raised.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace html_report_test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using servesim::testing::read_file;
using servesim::testing::run_cli;
using servesim::testing::TempDir;

// The JSON the page draws from.
json page_data(const std::string& html) {
  const std::string open = "<script id=\"servesim-data\" type=\"application/json\">";
  const auto begin = html.find(open);
  REQUIRE(begin != std::string::npos);
  const auto end = html.find("</script>", begin);
  return json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

// Output of a command and its exit status.
std::string capture(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  status = pclose(pipe);
  return out;
}

const char* chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(path)) return path;
  return nullptr;
}

// Loads the page in headless Chromium; checks every chart rendered and no error was raised,
// and leaves a screenshot beside the page.
void check_in_browser(const fs::path& page, int charts) {
  const char* browser = chromium();
  if (browser == nullptr) {
    WARN("chromium is not installed (apt-get install chromium): the browser check of " << page << " is skipped");
    return;
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
}

}  // namespace

TEST_CASE("report: a run's page carries its own distributions and renders in a browser", "[report][html]") {
  TempDir dir("html-run");
  const auto r = run_cli("run scenarios/quickstart.yaml --set stop.requests=400 --set outputs.timeseries=true "
                         "--set outputs.html=true -q --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const std::string html = read_file(dir.path / "report.html");
  // Self-contained: nothing is fetched.
  CHECK(html.find("src=\"http") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("Chart.js v3.9.1") != std::string::npos);
  const json data = page_data(html);
  const json summary = json::parse(read_file(dir.path / "summary.json"));
  CHECK(data["summary"] == summary);
  // The TTFT curve ends at the slowest request, reached by every request.
  const json& ttft = data["distributions"]["ttft_ms"]["conversation"];
  REQUIRE(ttft.size() == 200);
  CHECK(ttft.back()[0].get<double>() == Approx(summary["max_ttft_ms"].get<double>()).epsilon(1e-9));
  CHECK(ttft.back()[1].get<double>() == 1.0);
  CHECK(ttft.front()[1].get<double>() == Approx(1.0 / 400));
  // The timeline covers the run, interval by interval.
  const json& pool = data["timeline"]["main"];
  CHECK(pool["t"].size() == pool["kv_percent"].size());
  CHECK(pool["t"].size() >= static_cast<std::size_t>(summary["duration"].get<double>()));
  // The CLI writes the same page for the folder.
  const auto again = run_cli("report " + dir.path.string() + " -o " + (dir.path / "again.html").string());
  REQUIRE(again.exit_code == 0);
  CHECK(read_file(dir.path / "again.html") == html);
  // 3 distributions, 2 attribution charts, 3 timelines.
  check_in_browser(dir.path / "report.html", 8);
}

TEST_CASE("report: a sweep's page marks the Pareto front and saturated points and renders", "[report][html]") {
  TempDir dir("html-sweep");
  const auto r = run_cli("sweep scenarios/quickstart.yaml --set stop.requests=200 -q --axis "
                         "workload.0.trace.speedup=1,8,64 --axis cluster.pools.0.engine.max_num_seqs=32,256 --out " +
                         dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto page = run_cli("report " + dir.path.string());
  REQUIRE(page.exit_code == 0);
  const json data = page_data(read_file(dir.path / "report.html"));
  const json sweep = json::parse(read_file(dir.path / "sweep.json"));
  CHECK(data["kind"] == "sweep");
  CHECK(data["sweep"] == sweep);
  int saturated = 0;
  for (const auto& row : sweep["rows"]) saturated += row["summary"]["saturated"].get<int>();
  CHECK(saturated > 0);  // 64x the trace's rate: the page must draw hollow points
  check_in_browser(dir.path / "report.html", 3);
}

TEST_CASE("report: a folder without results is refused with exit 2", "[report][html]") {
  TempDir dir("html-empty");
  const auto r = run_cli("report " + dir.path.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds neither summary.json") != std::string::npos);
  CHECK(r.output.find(dir.path.string()) != std::string::npos);
}

TEST_CASE("report: a summary.json with a number beyond a double is refused naming the file", "[report][html]") {
  // nlohmann::json throws out_of_range (not parse_error) for 1e400; it must not end the program.
  TempDir dir("html-huge");
  dir.write("summary.json", "{\"completed\": 1e400}\n");
  const auto r = run_cli("report " + dir.path.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find((dir.path / "summary.json").string()) != std::string::npos);
  CHECK(r.output.find("not valid JSON") != std::string::npos);
}

}  // namespace html_report_test
