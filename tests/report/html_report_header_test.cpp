// The report's header (sim/report/html_report_header.h): what it knows of a run folder
// without run_context.json, what `report --scenario` adds, and its date, which a test can
// fix with SOURCE_DATE_EPOCH and which otherwise is when the folder's summary.json was
// written, so the page of one folder does not change from one `report` to the next.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "report/html_report_test_util.h"

namespace html_report_header_test {

using namespace html_report_test_util;
using servesim::testing::run_cli;
using servesim::testing::TempDir;

namespace {

// `servesim report ARGS` with SOURCE_DATE_EPOCH set to `epoch`; its output and exit status.
std::string report_at(const std::string& epoch, const std::string& arguments, int& status) {
  return capture(std::string("cd '") + SERVESIM_SOURCE_DIR + "' && SOURCE_DATE_EPOCH='" + epoch + "' '" +
                     SERVESIM_BINARY + "' report " + arguments + " 2>&1",
                 status);
}

std::string header_of(const std::string& html) {
  const auto begin = html.find("<section id=\"simulated\">");
  REQUIRE(begin != std::string::npos);
  return html.substr(begin, html.find("</section>", begin) - begin);
}

}  // namespace

TEST_CASE("report header: a run folder without run_context.json shows its deployment and says what it lacks",
          "[report][html]") {
  TempDir dir("html-header-plain");
  const std::string run = (dir.path / "run").string();
  REQUIRE(run_cli("run scenarios/quickstart.yaml -q --set stop.requests=20 --out " + run).exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path / "run" / "run_context.json"));  // outputs.html is off

  const auto plain = run_cli("report " + run);
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.output.find("the page's header lacks the workload, SLO targets, seed and KV capacity") !=
        std::string::npos);
  std::string header = header_of(read_file(dir.path / "run" / "report.html"));
  // summary.json's deployment: the pool's model, GPU and parallelism, but no workload or KV.
  CHECK(header.find("<td>llama-3-8b</td><td>h100-sxm</td><td>1 / 1 / 1</td>") != std::string::npos);
  CHECK(header.find("<h3>Workload</h3>") == std::string::npos);
  CHECK(header.find("no run_context.json") != std::string::npos);
  CHECK(page_data(read_file(dir.path / "run" / "report.html"))["context"].is_null());

  // --scenario describes the run: its stop as overridden, its class and SLO targets.
  const auto described = run_cli("report " + run + " --scenario scenarios/quickstart.yaml --set stop.requests=20");
  REQUIRE(described.exit_code == 0);
  CHECK(described.output.find("header lacks") == std::string::npos);
  header = header_of(read_file(dir.path / "run" / "report.html"));
  CHECK(header.find("<td>after 20 requests</td>") != std::string::npos);
  CHECK(header.find("<td>conversation</td>") != std::string::npos);
  CHECK(header.find("ttft p99 &le; 2000 ms") != std::string::npos);

  const auto lonely = run_cli("report " + run + " --set stop.requests=20");
  CHECK(lonely.exit_code == 2);
  CHECK(lonely.output.find("--set needs --scenario") != std::string::npos);
}

TEST_CASE("report header: the date is SOURCE_DATE_EPOCH's when set - and a bad one exits 2 naming it",
          "[report][html]") {
  TempDir dir("html-header-date");
  const std::string run = (dir.path / "run").string();
  REQUIRE(run_cli("run scenarios/quickstart.yaml -q --set stop.requests=20 --out " + run).exit_code == 0);
  int status = 0;
  // 86400 + 3600 + 120 s after the epoch: the second day of 1970, 01:02.
  report_at("90120", run + " -q", status);
  REQUIRE(status == 0);
  const std::string html = read_file(dir.path / "run" / "report.html");
  CHECK(header_of(html).find("<th>date</th><td>1970-01-02 01:02 UTC (SOURCE_DATE_EPOCH)</td>") != std::string::npos);
  CHECK(page_data(html)["date"] == "1970-01-02 01:02 UTC (SOURCE_DATE_EPOCH)");

  const std::string bad = report_at("yesterday", run, status);
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(bad.find("SOURCE_DATE_EPOCH") != std::string::npos);
  CHECK(bad.find("'yesterday' is not a whole number of seconds") != std::string::npos);
}

}  // namespace html_report_header_test
