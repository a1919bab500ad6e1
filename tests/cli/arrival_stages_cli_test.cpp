// Arrival stages through `servesim run`: a two-stage scenario without `stop` runs, ends with
// its last stage, and requests.csv holds each stage's arrivals.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"

namespace arrival_stages_cli_test {

using namespace servesim::testing;

namespace {

// PROCESS is filled in below. No `stop`: the stages end the arrivals, the run drains.
const char* kTwoStages = R"(name: stages
seed: 9
workload:
  - class: chat
    arrival:
      process: PROCESS
      stages:
        - {duration: 20s, rate: 5}
        - {duration: 20s, rate: 20}
    input: {fixed: 200}
    output: {fixed: 20}
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill}
)";

std::vector<CsvRequest> run_stages(const TempDir& dir, const std::string& process, nlohmann::json& summary) {
  std::string text = kTwoStages;
  text.replace(text.find("PROCESS"), 7, process);
  const auto path = dir.write(process + ".yaml", text);
  const auto out = dir.path / process;
  const CliResult r = run_cli("run " + path.string() + " --quiet --out " + out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  summary = nlohmann::json::parse(read_file(out / "summary.json"));
  return parse_requests_csv(read_file(out / "requests.csv"));
}

}  // namespace

TEST_CASE("stages cli: constant stages send exactly rate x duration each and then stop", "[cli][workload]") {
  TempDir dir("stages-constant");
  nlohmann::json summary;
  const std::vector<CsvRequest> rows = run_stages(dir, "constant", summary);
  // Stage 1: 5/s for 20 s, at 0.2 k s (k = 1..100); stage 2: 20/s, at 20 + 0.05 k s (k = 1..400).
  REQUIRE(rows.size() == 500);
  for (const CsvRequest& r : rows) {
    CAPTURE(r.id);
    const std::int64_t expected_ns =
        r.id < 100 ? (r.id + 1) * 200'000'000 : 20'000'000'000 + (r.id - 99) * 50'000'000;
    CHECK(r.arrival_ns == expected_ns);
    CHECK(r.outcome == "completed");
  }
  CHECK(summary["completed"] == 500);
}

TEST_CASE("stages cli: poisson stages send rate x duration each within 4 standard deviations", "[cli][workload]") {
  TempDir dir("stages-poisson");
  nlohmann::json summary;
  const std::vector<CsvRequest> rows = run_stages(dir, "poisson", summary);
  std::int64_t first = 0, second = 0;
  for (const CsvRequest& r : rows) {
    REQUIRE(r.arrival_ns > 0);
    REQUIRE(r.arrival_ns <= 40'000'000'000);  // nothing after the last stage
    (r.arrival_ns <= 20'000'000'000 ? first : second) += 1;
  }
  // Expected 100 and 400; a Poisson count's standard deviation is the square root of its
  // mean (10 and 20). Swapping the stages' rates, or one stage's rate for the whole run,
  // lands far outside.
  CHECK(std::abs(static_cast<double>(first) - 100) <= 4 * 10);
  CHECK(std::abs(static_cast<double>(second) - 400) <= 4 * 20);
  CHECK(summary["completed"] == static_cast<std::int64_t>(rows.size()));
}

TEST_CASE("stages cli: a bad stage exits 2 naming the file and line and key", "[cli][workload]") {
  TempDir dir("stages-bad");
  std::string text = kTwoStages;
  text.replace(text.find("PROCESS"), 7, "poisson");
  text.replace(text.find("{duration: 20s, rate: 20}"), 25, "{duration: 20s, rate: -3}");
  const auto path = dir.write("bad.yaml", text);
  const CliResult r = run_cli("run " + path.string() + " --quiet --out " + (dir.path / "out").string());
  CAPTURE(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("bad.yaml:9:33: workload.0.arrival.stages.1.rate: must be >= 0, got -3") != std::string::npos);
}

}  // namespace arrival_stages_cli_test
