// One run judged by `itl: {every: 50ms}` and by `itl: {p99: 50ms}` (docs/metrics.md, "SLOs
// and goodput"): `every` bounds each gap (a request by its longest, a run by the slowest of
// all), a statistic bounds a request's mean gap and the run's stated percentile. Goodput is
// recounted here from requests.csv, independently of the simulator's own count.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/slo_targets.h"

using namespace servesim::testing;

namespace servesim::slo_statistic_test {
namespace {

// Each step takes 1 ms + 0.1 ms per token it computes. Request 1 arrives at 0 and prefills
// its 1000 tokens alone (101 ms); request 2 arrives at 100 ms and its 1000-token prefill
// joins request 1's first decode step (1 + 0.1 x 1001 = 101.1 ms): request 1's first gap.
// From then on both decode, 1.2 ms a step. So request 1 has one ~101 ms gap among 299
// (mean gap ~1.5 ms) and request 2 none above ~1.2 ms; of the run's 598 gaps one is slow,
// below its p99 rank.
constexpr const char* kScenario = R"(name: itl-statistic
seed: 1
stop: {requests: 2}
workload:
  - class: default
    arrival: {process: constant, rate: 10}
    input: {fixed: 1000}
    output: {fixed: 300}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 8, max_batched_tokens: 4096, block_size: 16}
      cost_model: {linear: {base: 1ms, per_token: 0.1ms}}
outputs: {requests_csv: true}
)";

struct Row {
  std::string outcome;
  double tpot_ms = -1;     // -1: empty cell
  double max_itl_ms = -1;
};

std::vector<Row> read_rows(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::size_t> column;
  {
    std::istringstream header(line);
    std::string name;
    for (std::size_t i = 0; std::getline(header, name, ','); ++i) column[name] = i;
  }
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::istringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    cells.resize(column.size());
    auto number = [&](const char* name) {
      const std::string& c = cells.at(column.at(name));
      return c.empty() ? -1.0 : std::stod(c);
    };
    rows.push_back({cells.at(column.at("outcome")), number("tpot_ms"), number("max_itl_ms")});
  }
  return rows;
}

struct Judged {
  nlohmann::json summary;
  std::vector<Row> rows;
  std::vector<std::string> run_misses;  // the run judged on the class's slo: as capacity does
};

Judged run_with(const std::string& name, const std::string& itl_slo) {
  TempDir dir(name);
  const auto scenario = dir.write("s.yaml", kScenario);
  const std::string set = "workload.0.slo={itl: " + itl_slo + "}";
  const auto r = run_cli("run " + scenario.string() + " --quiet --out " + dir.path.string() + " --set '" + set + "'");
  REQUIRE(r.exit_code == 0);
  Judged j;
  j.summary = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  j.rows = read_rows(read_file(dir.path / "requests.csv"));
  SummaryBlock block;
  for (const char* field : {"max_itl_ms", "p99_itl_ms"}) block.set(field, j.summary[field].get<double>());
  const Scenario s = load_scenario(scenario.string(), {set});
  j.run_misses = slo_violations(slo_targets_from_spec(s.workload.at(0).slo), block);
  return j;
}

// Completed requests whose figure (-1: none, which cannot miss) is within `bound_ms`.
long good(const std::vector<Row>& rows, double Row::*figure, double bound_ms) {
  long n = 0;
  for (const Row& r : rows)
    if (r.outcome == "completed" && r.*figure <= bound_ms) ++n;
  return n;
}

}  // namespace

TEST_CASE("slo statistic: itl every 50ms and itl p99 50ms judge the same run differently", "[metrics][slo]") {
  const Judged every = run_with("itl-every", "{every: 50ms}");
  const Judged p99 = run_with("itl-p99", "{p99: 50ms}");
  REQUIRE(every.rows.size() == 2);
  // The same run both times.
  CHECK(every.summary["max_itl_ms"] == p99.summary["max_itl_ms"]);
  CHECK(every.summary["p99_itl_ms"] == p99.summary["p99_itl_ms"]);

  // By hand: the slow gap is request 1's first, ~101 ms; every other gap ~1.2 ms.
  const double slowest = every.summary["max_itl_ms"].get<double>();
  CHECK(slowest > 100);
  CHECK(slowest < 103);
  CHECK(every.summary["p99_itl_ms"].get<double>() < 5);

  // Per request, recounted from requests.csv: `every` on the longest gap fails request 1,
  // the p99 statement on the mean gap passes both.
  CHECK(good(every.rows, &Row::max_itl_ms, 50) == 1);
  CHECK(good(p99.rows, &Row::tpot_ms, 50) == 2);
  CHECK(every.summary["slo_met"].get<long>() == good(every.rows, &Row::max_itl_ms, 50));
  CHECK(p99.summary["slo_met"].get<long>() == good(p99.rows, &Row::tpot_ms, 50));
  CHECK(every.summary["slo_attainment"].get<double>() == 0.5);
  CHECK(p99.summary["slo_attainment"].get<double>() == 1);
  // The mean-gap reading is the same whatever the statistic.
  CHECK(every.summary["slo_attainment_mean_itl"].get<double>() == 1);

  // The run: `every` bounds the slowest gap and misses; p99 bounds the 99th percentile and
  // meets.
  REQUIRE(every.run_misses.size() == 1);
  CHECK_THAT(every.run_misses[0], Catch::StartsWith("max_itl_ms "));
  CHECK(p99.run_misses.empty());
}

}  // namespace servesim::slo_statistic_test
