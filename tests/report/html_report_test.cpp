// `servesim report` and `outputs.html`: one self-contained page whose embedded data is the
// run's own (checked against summary.json, sweep.json and sweep.csv), and which a real
// browser renders: headless Chromium (Debian's `chromium`, installed by scripts/test) loads
// it, every chart draws and no script error is raised; the header says what was simulated,
// the SLO targets are lines on the charts and a sweep's points are labelled.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "report/html_report_test_util.h"

namespace html_report_test {

using namespace html_report_test_util;
using servesim::testing::run_cli;
using servesim::testing::TempDir;

// "KV cache: N tokens (B blocks of S)" as `servesim validate` prints it for the first pool
// (sim/cluster/engine_setup.cpp kv_cache_report, a path apart from the report's).
std::string validated_kv_capacity(const std::string& arguments) {
  const auto r = run_cli("validate " + arguments);
  REQUIRE(r.exit_code == 0);
  const std::string mark = "KV cache: ";
  const auto begin = r.output.find(mark);
  REQUIRE(begin != std::string::npos);
  return r.output.substr(begin + mark.size(), r.output.find(')', begin) + 1 - begin - mark.size());
}

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
  // The CLI writes the same page for the folder (its date is when summary.json was written).
  const auto again = run_cli("report " + dir.path.string() + " -o " + (dir.path / "again.html").string());
  REQUIRE(again.exit_code == 0);
  CHECK(read_file(dir.path / "again.html") == html);

  // What was simulated: the run wrote its context beside the page, and the page carries it.
  const json context = json::parse(read_file(dir.path / "run_context.json"));
  CHECK(data["context"] == context);
  // scenarios/quickstart.yaml: seed 1, one class with ttft 2s and itl 100ms at p99.
  CHECK(context["seed"] == 1);
  REQUIRE(context["classes"].size() == 1);
  const json& slo = context["classes"][0]["slo"];
  REQUIRE(slo.size() == 2);
  CHECK(slo[0]["field"] == "p99_ttft_ms");
  CHECK(slo[0]["target_ms"].get<double>() == 2000.0);
  CHECK(slo[1]["field"] == "p99_itl_ms");
  CHECK(slo[1]["target_ms"].get<double>() == 100.0);
  // The header, as static HTML: the pool as the scenario states it, its KV capacity as
  // `validate` sizes it, the servesim that ran and the run's length.
  const std::string header = html.substr(html.find("<section id=\"simulated\">"));
  CHECK(header.find("<td>quickstart (quickstart.yaml)</td>") != std::string::npos);
  CHECK(header.find("<th>seed</th><td>1</td>") != std::string::npos);
  CHECK(header.find("<td>after 400 requests</td>") != std::string::npos);
  CHECK(header.find("<td>llama-3-8b</td><td>h100-sxm</td><td>1 / 1 / 1</td><td>bf16 / bf16</td>") != std::string::npos);
  CHECK(header.find("<td>kernels (h100_sxm/vllm-") != std::string::npos);
  CHECK(header.find("<td>" + validated_kv_capacity("scenarios/quickstart.yaml") + "</td>") != std::string::npos);
  CHECK(header.find("ttft p99 &le; 2000 ms, itl p99 &le; 100 ms") != std::string::npos);
  const std::string version = run_cli("--version").output;  // "servesim X.Y.Z\n"
  CHECK(header.find("<th>servesim</th><td>" + version.substr(9, version.size() - 10) + "</td>") != std::string::npos);
  CHECK(header.find("UTC (summary.json written)</td>") != std::string::npos);

  // 3 distributions, 2 attribution charts, 3 timelines.
  const std::string dom = check_in_browser(dir.path / "report.html", 8);
  if (dom.empty()) return;
  // The TTFT target is a line on the TTFT distribution; TPOT and E2E have none.
  CHECK(canvas_attribute(dom, "Time to first token (CDF)", "data-slo-lines") ==
        "SLO conversation: TTFT p99 \u2264 2000 ms");
  CHECK(canvas_attribute(dom, "End-to-end latency (CDF)", "data-slo-lines").empty());
  // The verdict per objective, as the class's own p99 against its target.
  const json& cls = summary["classes"]["conversation"];
  const bool ttft_met = cls["p99_ttft_ms"].get<double>() <= 2000, itl_met = cls["p99_itl_ms"].get<double>() <= 100;
  CHECK(count(dom, "<td class=\"met\">met</td>") == static_cast<std::size_t>(ttft_met + itl_met));
  CHECK(count(dom, "<td class=\"missed\">missed</td>") == static_cast<std::size_t>(2 - ttft_met - itl_met));
  CHECK(dom.find("<h2>SLO verdict per class</h2>") != std::string::npos);
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

TEST_CASE("report: a replica sweep at fixed load draws each figure against replicas - labelled - with SLO lines",
          "[report][html][sweep]") {
  TempDir dir("html-replicas");
  // 8x the trace's rate: one replica falls behind, three keep up; no axis touches the load.
  const auto r = run_cli("sweep scenarios/quickstart.yaml --set stop.requests=600 --set workload.0.trace.speedup=8 -q "
                         "--axis cluster.pools.0.replicas=1,2,3 --jobs 2 --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  REQUIRE(run_cli("report " + dir.path.string() + " -q").exit_code == 0);
  const std::string html = read_file(dir.path / "report.html");
  const json data = page_data(html);
  CHECK(data["sweep"] == json::parse(read_file(dir.path / "sweep.json")));
  CHECK(html.find("<td>cluster.pools.0.replicas = 1, 2, 3 (product)") != std::string::npos);
  CHECK(html.find("<td>" + validated_kv_capacity("scenarios/quickstart.yaml") + "</td>") != std::string::npos);

  // The page's figures are sweep.csv's, read here from the CSV.
  const auto csv = read_plain_csv(dir.path / "sweep.csv");
  REQUIRE(csv.size() == 4);
  auto column = [&](const std::string& name) {
    const auto at = std::find(csv[0].begin(), csv[0].end(), name);
    REQUIRE(at != csv[0].end());
    return static_cast<std::size_t>(at - csv[0].begin());
  };
  const json& rows = data["sweep"]["rows"];
  REQUIRE(rows.size() == 3);
  std::string replica_labels, ttft_labels, cost_labels;
  std::size_t met = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& line = csv[i + 1];
    const json& s = rows[i]["summary"];
    CHECK(rows[i]["values"]["cluster.pools.0.replicas"] == std::stoi(line[column("cluster.pools.0.replicas")]));
    for (const char* f : {"p99_ttft_ms", "p99_tpot_ms", "p99_itl_ms", "sustained_served_rate", "slo_attainment",
                          "paid_per_1m_output_tokens"})
      CHECK(s[f].get<double>() == Approx(std::stod(line[column(f)])).epsilon(1e-12));
    // The cost per 1M output tokens is the cluster's hour over the tokens an hour serves.
    CHECK(std::stod(line[column("paid_per_1m_output_tokens")]) ==
          Approx(std::stod(line[column("cost_per_hour")]) / (std::stod(line[column("output_throughput")]) * 3600) * 1e6));
    const double ttft = std::stod(line[column("p99_ttft_ms")]), itl = std::stod(line[column("p99_itl_ms")]);
    met += ttft <= 2000 && itl <= 100;
    replica_labels += (i ? "|replicas=" : "replicas=") + line[column("cluster.pools.0.replicas")];
    ttft_labels += (i ? "|" : "") + page_number(ttft) + " ms";
    cost_labels += (i ? "|$" : "$") + page_number(std::stod(line[column("paid_per_1m_output_tokens")]));
  }
  // One replica falls behind: it serves less than offered over the arrival window. Three keep
  // up, and over the arrival window serve what is offered, where completions over the whole run
  // (request_throughput) read less: the drain after the last arrival dilutes them.
  CHECK(std::stod(csv[1][column("sustained_served_rate")]) < 0.9 * std::stod(csv[1][column("sustained_offered_rate")]));
  const double served = std::stod(csv[3][column("sustained_served_rate")]);
  CHECK(served > 0.95 * std::stod(csv[3][column("sustained_offered_rate")]));
  CHECK(std::stod(csv[3][column("request_throughput")]) < 0.9 * served);

  // 6 figures against replicas, 3 trade-off curves.
  const std::string dom = check_in_browser(dir.path / "report.html", 9);
  if (dom.empty()) return;
  CHECK(canvas_attribute(dom, "p99 TTFT vs replicas", "data-point-labels") == ttft_labels);
  CHECK(canvas_attribute(dom, "Cost per 1M output tokens vs replicas", "data-point-labels") == cost_labels);
  CHECK(canvas_attribute(dom, "p99 TTFT vs replicas", "data-slo-lines") == "SLO conversation: TTFT p99 \u2264 2000 ms");
  CHECK(canvas_attribute(dom, "p99 ITL vs requests served / s", "data-point-labels") == replica_labels);
  CHECK(canvas_attribute(dom, "p99 ITL vs requests served / s", "data-slo-lines") ==
        "SLO conversation: ITL p99 \u2264 100 ms");
  CHECK(canvas_attribute(dom, "p99 E2E latency vs requests served / s", "data-slo-lines").empty());
  // Each point's verdict, the class's p99s against the scenario's targets.
  CHECK(count(dom, "<td class=\"met\">met</td>") == met);
  CHECK(count(dom, "<td class=\"missed\">missed: ") == 3 - met);
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
