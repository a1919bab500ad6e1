// The files the sweep, merge, capacity, explain and report commands leave, as their writers
// in sim/report/ write them: each read back and checked against the result it was made from.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/report/capacity_files.h"
#include "sim/report/explain_files.h"
#include "sim/report/html_report.h"
#include "sim/report/html_report_files.h"
#include "sim/report/sweep_files.h"

namespace study_files_test {

using namespace servesim;
using servesim::testing::read_file;
using servesim::testing::run_cli;
using servesim::testing::TempDir;
namespace fs = std::filesystem;

namespace {

RunSummary small_summary(std::int64_t completed, double output_throughput) {
  RunSummary s;
  s.overall.set_count("completed", completed);
  s.overall.set("output_throughput", output_throughput);
  return s;
}

// Two points over the axis "seed": point 0 ran (12 completed, 345.5 tok/s), point 1 failed.
SweepTable two_point_table(const RunSummary& ran) {
  SweepTable t;
  t.scenario = "demo";
  t.axes = {"seed"};
  t.points = 2;
  t.rows.push_back(make_sweep_row(0, t.axes, {"1"}, &ran, ""));
  t.rows.push_back(make_sweep_row(1, t.axes, {"2"}, nullptr, "boom"));
  mark_pareto(t);
  return t;
}

// The CSV's rows as maps from header name to cell (no cell here holds a comma or quote).
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream s(l);
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    if (!l.empty() && l.back() == ',') cells.push_back("");
    return cells;
  };
  std::getline(in, line);
  const auto header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const auto cells = split(line);
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST_CASE("sweep files: the default folder is results/NAME-sweep and a shard's sits inside it", "[report][sweep]") {
  SweepTable header;
  header.scenario = "demo";
  CHECK(default_sweep_dir(header) == "results/demo-sweep");
  header.shard = SweepShard{1, 4};
  CHECK(default_sweep_dir(header) == "results/demo-sweep/shard-1-of-4");
}

TEST_CASE("sweep files: sweep.json and sweep.csv hold the table's rows", "[report][sweep]") {
  const TempDir dir("study_files_sweep");
  const std::string folder = (dir.path / "nested" / "out").string();
  const SweepTable table = two_point_table(small_summary(12, 345.5));
  const SweepFiles files = write_sweep_files(table, folder);
  CHECK(files.json_path == folder + "/sweep.json");
  CHECK(files.csv_path == folder + "/sweep.csv");

  const auto j = nlohmann::json::parse(read_file(files.json_path));
  CHECK(j["scenario"] == "demo");
  CHECK(j["points"] == 2);
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["values"]["seed"] == 1);
  CHECK(j["rows"][0]["summary"]["completed"] == 12);
  CHECK(j["rows"][0]["summary"]["output_throughput"] == 345.5);
  CHECK(j["rows"][1]["error"] == "boom");
  CHECK(j["rows"][1]["summary"].is_null());
  // Read back, the table is the one written: what merge relies on.
  const SweepTable back = read_sweep_table(folder);
  REQUIRE(back.rows.size() == 2);
  CHECK(back.rows[0] == table.rows[0]);
  CHECK(back.rows[1] == table.rows[1]);

  const auto rows = csv_rows(read_file(files.csv_path));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("point") == "0");
  CHECK(rows[0].at("seed") == "1");
  CHECK(rows[0].at("completed") == "12");
  CHECK(rows[0].at("output_throughput") == "345.5");
  CHECK(rows[0].at("error") == "");
  CHECK(rows[1].at("point") == "1");
  CHECK(rows[1].at("seed") == "2");
  CHECK(rows[1].at("error") == "boom");
  CHECK(rows[1].at("completed") == "");
  CHECK_FALSE(fs::exists(files.json_path + ".partial"));
}

TEST_CASE("sweep files: merge's OUT.json puts OUT.csv beside it and any other name is a folder", "[report][sweep]") {
  const TempDir dir("study_files_merge");
  const SweepTable table = two_point_table(small_summary(3, 10));
  const std::string named = (dir.path / "m" / "all.json").string();
  const SweepFiles a = write_merged_sweep_files(table, named);
  CHECK(a.json_path == named);
  CHECK(a.csv_path == (dir.path / "m" / "all.csv").string());
  CHECK(nlohmann::json::parse(read_file(a.json_path))["rows"][0]["summary"]["completed"] == 3);
  CHECK(csv_rows(read_file(a.csv_path)).size() == 2);

  const std::string folder = (dir.path / "f").string();
  const SweepFiles b = write_merged_sweep_files(table, folder);
  CHECK(b.json_path == folder + "/sweep.json");
  CHECK(b.csv_path == folder + "/sweep.csv");
  CHECK(read_file(b.json_path) == read_file(a.json_path));
  CHECK(read_file(b.csv_path) == read_file(a.csv_path));
}

TEST_CASE("sweep files: a point's summary goes to OUT/points/INDEX/summary.json", "[report][sweep]") {
  const TempDir dir("study_files_point");
  write_sweep_point_summary(dir.path.string(), 7, small_summary(5, 42.25));
  const auto j = nlohmann::json::parse(read_file(dir.path / "points" / "7" / "summary.json"));
  CHECK(j["completed"] == 5);
  CHECK(j["output_throughput"] == 42.25);
}

TEST_CASE("sweep files: a folder that cannot be made is a ConfigError naming --out", "[report][sweep]") {
  try {
    write_sweep_files(two_point_table(small_summary(1, 1)), "/dev/null/out");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "--out");
    CHECK(e.file() == "/dev/null/out");
  }
}

TEST_CASE("capacity files: capacity.json and the summary at capacity - nothing without a folder", "[report][sweep]") {
  const TempDir dir("study_files_capacity");
  CapacityStudy study;
  study.plan.scenario_name = "demo";
  study.plan.knob.unit = "req/s";
  CapacityTrialRun low, high;
  low.x = 2;
  low.feasible = true;
  low.summary = small_summary(40, 123.5);
  high.x = 4;
  high.reason = "p99_ttft_ms 3000 > 2000";
  study.trials = {high, low};
  study.search.trials = {CapacityTrial{4, false, high.reason}, CapacityTrial{2, true, ""}};
  study.search.best = 1;
  study.search.lowest_infeasible = 4;

  // Without a folder nothing is written: not even capacity.json in the working folder.
  REQUIRE_FALSE(fs::exists("capacity.json"));
  const nlohmann::ordered_json printed = write_capacity_files(study, 0.05, "");
  CHECK_FALSE(fs::exists("capacity.json"));
  CHECK(printed["capacity"] == 2);

  const fs::path out = dir.path / "cap";
  const nlohmann::ordered_json report = write_capacity_files(study, 0.05, out.string());
  CHECK(report == printed);
  const std::string text = read_file(out / "capacity.json");
  CHECK(text == report.dump(2) + "\n");
  const auto j = nlohmann::json::parse(text);
  CHECK(j["scenario"] == "demo");
  CHECK(j["feasible"] == true);
  CHECK(j["capacity"] == 2);
  CHECK(j["lowest_infeasible"] == 4);
  REQUIRE(j["trials"].size() == 2);
  CHECK(j["trials"][0]["value"] == 4);
  CHECK(j["trials"][0]["reason"] == "p99_ttft_ms 3000 > 2000");
  const auto summary = nlohmann::json::parse(read_file(out / "summary.json"));
  CHECK(summary["completed"] == 40);
  CHECK(summary["output_throughput"] == 123.5);

  SECTION("no feasible value: capacity.json alone") {
    study.search.best.reset();
    const fs::path infeasible = dir.path / "infeasible";
    write_capacity_files(study, 0.05, infeasible.string());
    const auto k = nlohmann::json::parse(read_file(infeasible / "capacity.json"));
    CHECK(k["feasible"] == false);
    CHECK(k["capacity"].is_null());
    CHECK_FALSE(fs::exists(infeasible / "summary.json"));
  }
}

TEST_CASE("explain files: explain.json holds the study as printed", "[report][explain]") {
  const TempDir dir("study_files_explain");
  ExplainStudy study;
  study.scenario = "demo";
  study.seed = 9;
  study.base.set("p99_ttft_ms", 250);
  study.base_overload = "saturated";
  study.rankings.resize(explain_metrics().size());  // one per metric, as run_explain leaves them
  const std::string folder = (dir.path / "ex").string();
  const ExplainFiles files = write_explain_files(study, folder);
  CHECK(files.json_path == folder + "/explain.json");
  const std::string text = read_file(files.json_path);
  CHECK(text == files.json.dump(2) + "\n");
  const auto j = nlohmann::json::parse(text);
  CHECK(j["scenario"] == "demo");
  CHECK(j["seed"] == 9);
  CHECK(j["base"]["p99_ttft_ms"] == 250);
  CHECK(j["base_overload"] == "saturated");
  CHECK(j["variants"].empty());
  CHECK(j["metrics"]["p99_ttft_ms"]["owner"] == "none");
}

TEST_CASE("report files: the page goes to DIR/report.html and names the sections a run lacks", "[report][html]") {
  const TempDir dir("study_files_html");
  const fs::path run = dir.path / "run";
  const auto r = run_cli("run scenarios/quickstart.yaml --set stop.requests=20 --set outputs.requests_csv=false -q --out " +
                         run.string());
  REQUIRE(r.exit_code == 0);
  const HtmlReportFile page = write_html_report_file(run.string(), "");
  CHECK(page.path == (run / "report.html").string());
  CHECK(read_file(page.path) == html_report(run.string()));
  CHECK(page.missing ==
        "no latency distributions (no requests.csv: outputs.requests_csv: true writes it) and "
        "no timeline (no timeseries.csv: outputs.timeseries: true writes it)");

  const fs::path sweep = dir.path / "sweep";
  write_sweep_files(two_point_table(small_summary(12, 345.5)), sweep.string());
  const std::string elsewhere = (dir.path / "pages" / "sweep.html").string();
  const HtmlReportFile sweep_page = write_html_report_file(sweep.string(), elsewhere);
  CHECK(sweep_page.path == elsewhere);
  CHECK(sweep_page.missing.empty());
  CHECK(read_file(elsewhere) == html_report(sweep.string()));
  CHECK_FALSE(fs::exists(sweep / "report.html"));
}

TEST_CASE("report files: a folder with no run or sweep is a ConfigError and writes nothing", "[report][html]") {
  const TempDir dir("study_files_html_empty");
  CHECK_THROWS_AS(write_html_report_file(dir.path.string(), ""), ConfigError);
  CHECK_FALSE(fs::exists(dir.path / "report.html"));
}

}  // namespace study_files_test
