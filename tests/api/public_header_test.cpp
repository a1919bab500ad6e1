// The public header (include/servesim/servesim.h) is enough to run a scenario and the
// studies, and gives what the CLI gives: the same summary.json bit for bit, the same sweep
// rows, the same capacity, the same errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>

#include "servesim/servesim.h"
#include "cli/cli_test_util.h"

namespace public_header_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

const std::string kScenario =
    "name: api\nseed: 9\nstop: {requests: 400}\n"
    "workload:\n  - class: default\n    arrival: {process: poisson, rate: 20}\n"
    "    input: {lognormal: {median: 600, sigma: 0.5}, max: 4000}\n    output: {fixed: 60}\n"
    "    slo: {ttft: 300ms}\n"
    "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n"
    "      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 2048, kv_cache_tokens: 200000}\n"
    "      cost_model: {constant: {step: 10ms}}\n"
    "outputs: {requests_csv: false}\n";

}  // namespace

TEST_CASE("public header: run_scenario writes the summary.json the CLI writes", "[api]") {
  TempDir dir("api-run");
  const std::string path = dir.write("s.yaml", kScenario).string();
  const servesim::ScenarioFile s = servesim::ScenarioFile::load(path, {});
  const servesim::RunOutcome one = servesim::run_scenario(s);
  CHECK(one.result.completed == 400);
  CHECK(one.result.steps > 0);
  std::ostringstream mine;
  servesim::write_summary_json(one.result.summary, mine);
  REQUIRE(run_cli("run " + path + " --quiet -o " + (dir.path / "cli").string()).exit_code == 0);
  CHECK(mine.str() == read_file(dir.path / "cli" / "summary.json"));
  // Another seed is another run; the scenario's own is the default.
  CHECK(servesim::run_scenario(s, 10).result.summary.overall.get("mean_ttft_ms") !=
        one.result.summary.overall.get("mean_ttft_ms"));
}

TEST_CASE("public header: the studies answer as their commands do", "[api]") {
  TempDir dir("api-studies");
  const std::string path = dir.write("s.yaml", kScenario).string();

  servesim::SweepRequest sweep;
  sweep.scenario_path = path;
  sweep.axes = {servesim::parse_axis("workload.0.arrival.rate=10,40")};
  const servesim::SweepStudy table = servesim::run_sweep(sweep);
  REQUIRE(table.table.rows.size() == 2);
  REQUIRE(run_cli("sweep " + path + " --axis workload.0.arrival.rate=10,40 -q -o " + (dir.path / "sweep").string())
              .exit_code == 0);
  const json cli_sweep = json::parse(read_file(dir.path / "sweep" / "sweep.json"));
  for (std::size_t r = 0; r < 2; ++r)
    CHECK(table.table.rows[r]["summary"]["p99_ttft_ms"].get<double>() ==
          cli_sweep["rows"][r]["summary"]["p99_ttft_ms"].get<double>());

  servesim::CapacityRequest cap;
  cap.scenario_path = path;
  const servesim::CapacityStudy found = servesim::run_capacity(cap, servesim::plan_capacity(cap));
  REQUIRE(found.at_capacity());
  const auto cli_cap = run_cli("capacity " + path + " --json");
  REQUIRE(cli_cap.exit_code == 0);
  CHECK(found.at_capacity()->x == json::parse(cli_cap.output)["capacity"].get<double>());
}

TEST_CASE("public header: bad input throws ConfigError with the CLI's file - line and key", "[api]") {
  TempDir dir("api-errors");
  std::string bad = kScenario;
  bad.replace(bad.find("max_num_seqs: 64"), 16, "max_num_sqs: 64");
  const std::string path = dir.write("bad.yaml", bad).string();
  try {
    servesim::ScenarioFile::load(path, {});
    FAIL("no error");
  } catch (const servesim::ConfigError& e) {
    CHECK(e.file() == path);
    CHECK(e.line() == 16);  // the engine: line
    CHECK(std::string(e.what()).find("max_num_sqs") != std::string::npos);
  }
}

}  // namespace public_header_test
