// A figure without samples does not exist: summary.json writes it as null, the console as
// "-", never as 0, which would read as "instant" (docs/metrics.md, "No samples"). A request
// with output 0 (an embedding, a prefill-only request) ends with its prefill: it has no
// first token, so no TTFT, and no second token, so no TPOT and no gap (ITL).
#include <cmath>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace absent_figures_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

// Every statistic summary.json gives each latency (docs/metrics.md).
const char* const kStats[] = {"mean", "median", "std", "p50", "p90", "p95", "p99", "p999", "max"};

// Poisson arrivals at 5 req/s into one 8B replica: class `embed` asks for no output token;
// with `chat_output` > 0 a second class `chat` asks for that many.
std::string scenario_text(int chat_output) {
  std::string s =
      "name: prefill-only\nseed: 5\nstop: {requests: 40}\nworkload:\n"
      "  - class: embed\n    arrival: {process: poisson, rate: 5}\n    input: {fixed: 512}\n"
      "    output: {fixed: 0}\n    slo: {ttft: 100ms, e2el: 10s}\n";
  if (chat_output > 0)
    s += "  - class: chat\n    arrival: {process: poisson, rate: 5}\n    input: {fixed: 256}\n"
         "    output: {fixed: " + std::to_string(chat_output) + "}\n";
  s += "cluster:\n  pools:\n    - name: main\n      model: llama-3-8b\n      hardware: h100-sxm\n"
       "outputs: {requests_csv: false}\n";
  return s;
}

void check_absent(const json& block, const std::string& metric) {
  for (const char* stat : kStats) {
    const std::string field = std::string(stat) + "_" + metric + "_ms";
    INFO(field);
    REQUIRE(block.contains(field));  // the key stays; its value is null
    CHECK(block[field].is_null());
  }
}

void check_present(const json& block, const std::string& metric) {
  for (const char* stat : kStats) {
    const std::string field = std::string(stat) + "_" + metric + "_ms";
    INFO(field);
    CHECK(block[field].is_number());
  }
}

// The cells of the console table's row that starts with `label`.
std::vector<std::string> console_row(const std::string& output, const std::string& label) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::vector<std::string> row;
    std::string cell;
    while (cells >> cell) row.push_back(cell);
    if (!row.empty() && row[0] == label) return row;
  }
  return {};
}

}  // namespace

TEST_CASE("absent figures: a prefill-only run writes TTFT - TPOT and ITL as null and prints them as -",
          "[cli][metrics]") {
  const TempDir dir("absent_prefill_only");
  const auto scenario = dir.write("prefill-only.yaml", scenario_text(0));
  const std::string out = (dir.path / "run").string();
  const auto run = run_cli("run " + scenario.string() + " --out " + out);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const json s = json::parse(read_file(dir.path / "run" / "summary.json"));
  REQUIRE(s["completed"] == 40);
  REQUIRE(s["total_output_tokens"] == 0);

  // No request produced a token: every statistic of TTFT, TPOT and ITL, in every block.
  for (const json* block : {&s, &s["classes"]["embed"], &s["pools"]["main"]})
    for (const char* metric : {"ttft", "tpot", "itl"}) check_absent(*block, metric);
  // Each request still has an end (its prefill) and a queue time.
  for (const char* metric : {"e2el", "queue"}) {
    CHECK(s["max_" + std::string(metric) + "_ms"].is_number());
    CHECK(s["p99_" + std::string(metric) + "_ms"].get<double>() > 0);
  }
  // The TTFT parts average the requests with a first token, the ITL parts their gaps: none.
  for (const auto& [part, value] : s["ttft_attribution"].items()) CHECK(value.is_null());
  for (const auto& [part, value] : s["itl_attribution"].items()) CHECK(value.is_null());

  // The SLO on TTFT cannot miss a figure that does not exist, and the verdict says which
  // objective rests on none; the E2EL objective is judged on its figure.
  const json& v = s["classes"]["embed"]["slo_verdict"];
  CHECK(v["ttft_p99"]["value_ms"].is_null());
  CHECK(v["ttft_p99"]["met"] == true);
  CHECK(v["e2el_p99"]["value_ms"].get<double>() == s["classes"]["embed"]["p99_e2el_ms"].get<double>());
  CHECK(s["slo_verdict"]["met"] == true);
  CHECK(s["slo_verdict"]["no_samples"] == json::array({"embed.ttft_p99"}));

  // The console: "-" in the TTFT, ITL and TPOT columns, numbers in E2E, and a key to "-".
  const auto row = console_row(run.output, "embed");
  REQUIRE(row.size() >= 12);
  // class, completed, rejected, req/s, out tok/s, TTFT p50, TTFT p99, ITL p50, ITL p99, TPOT p50, E2E p50, E2E p99
  for (int column : {5, 6, 7, 8, 9}) CHECK(row[column] == "-");
  CHECK(row[10] != "-");
  CHECK(run.output.find("-: no samples") != std::string::npos);
  CHECK(run.output.find("ttft p99: no samples (cannot miss)") != std::string::npos);
  CHECK(run.output.find("TTFT mean") == std::string::npos);  // no attribution of a TTFT that is not there

  // The sweep table takes its cells from the same figures: null in sweep.json, empty in CSV.
  const std::string sweep_out = (dir.path / "sweep").string();
  const auto sweep = run_cli("sweep " + scenario.string() + " --axis workload.0.input.fixed=256,512 -q --out " + sweep_out);
  INFO(sweep.output);
  REQUIRE(sweep.exit_code == 0);
  const json table = json::parse(read_file(dir.path / "sweep" / "sweep.json"));
  for (const auto& r : table["rows"]) {
    CHECK(r["summary"]["p99_ttft_ms"].is_null());
    CHECK(r["summary"]["mean_itl_ms"].is_null());
    CHECK(r["summary"]["p99_e2el_ms"].is_number());
  }
}

TEST_CASE("absent figures: a class with output 0 beside one with output 4 - only the first has no TTFT",
          "[cli][metrics]") {
  const TempDir dir("absent_mixed");
  const auto scenario = dir.write("mixed.yaml", scenario_text(4));
  const auto run = run_cli("run " + scenario.string() + " -q --out " + (dir.path / "run").string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const json s = json::parse(read_file(dir.path / "run" / "summary.json"));
  const json& embed = s["classes"]["embed"];
  const json& chat = s["classes"]["chat"];
  REQUIRE(embed["completed"].get<int>() > 0);
  REQUIRE(chat["completed"].get<int>() > 0);
  for (const char* metric : {"ttft", "tpot", "itl"}) {
    check_absent(embed, metric);
    check_present(chat, metric);
    check_present(s, metric);
  }
  // Only chat's requests have a TTFT and gaps, so the run's figures are chat's, exactly: an
  // absent figure is not averaged in as 0 (with 0s the run's mean TTFT would be lower).
  for (const char* field : {"mean_ttft_ms", "p99_ttft_ms", "max_ttft_ms", "mean_tpot_ms", "mean_itl_ms", "max_itl_ms"}) {
    INFO(field);
    CHECK(s[field].get<double>() == chat[field].get<double>());
  }
  // Each chat request has 4 tokens: 3 gaps, so 3 ITL samples per TPOT sample, whose mean
  // is the request's TPOT: the run's mean ITL equals its mean TPOT (every gap counted), to
  // the whole nanosecond each TPOT is rounded down to.
  const double itl_ms = s["mean_itl_ms"].get<double>(), tpot_ms = s["mean_tpot_ms"].get<double>();
  CHECK(itl_ms >= tpot_ms);
  CHECK(itl_ms - tpot_ms < 1e-6);
}

}  // namespace absent_figures_test
