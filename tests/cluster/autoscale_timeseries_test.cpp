// timeseries.csv of a run with an autoscaled pool: every row ends with its pool's
// replicas active and paid at the interval's end; a run without one keeps its header.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <sstream>

#include "cli/cli_test_util.h"
#include "sim/metrics/timeseries.h"

namespace autoscale_timeseries_test {

using namespace servesim::testing;

namespace {

const char* kScenario = R"(stop: {time: 30s}
workload:
  - {class: a, arrival: {process: constant, rate: 1}, input: {fixed: 10}, output: {fixed: 5}}
  - {class: b, arrival: {process: constant, rate: 1}, input: {fixed: 10}, output: {fixed: 5}}
cluster:
  pools:
    - {name: fixed, replicas: 1, model: llama-3-8b, hardware: h100-sxm, classes: [a],
       cost_model: {constant: {step: 10ms}}}
    - name: scaled
      model: llama-3-8b
      hardware: h100-sxm
      classes: [b]
      cost_model: {constant: {step: 10ms}}
      autoscale:
        policy: schedule
        max_replicas: 3
        cold_start: 2s
        schedule: [{at: 10.5s, replicas: 3}, {at: 20.5s, replicas: 1}]
outputs: {timeseries: true, timeseries_interval: 1s}
)";

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, ',');) out.push_back(cell);
  return out;
}

}  // namespace

TEST_CASE("autoscale timeseries rows carry the pool's active and paid replicas at each interval's end",
          "[cluster][autoscale][timeseries]") {
  TempDir dir("autoscale-timeseries");
  const auto scenario = dir.write("s.yaml", kScenario);
  const CliResult r = run_cli("run " + scenario.string() + " --quiet --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::stringstream csv(read_file(dir.path / "out" / "timeseries.csv"));
  std::string line;
  std::getline(csv, line);
  CHECK(line == std::string(servesim::TimeseriesWriter::kHeader) + servesim::TimeseriesWriter::kFleetColumns);
  const std::vector<std::string> header = split(line);
  // (pool, second) -> (active, paid), the same on every replica's row of the pool.
  std::map<std::pair<std::string, int>, std::pair<int, int>> fleet;
  while (std::getline(csv, line)) {
    const std::vector<std::string> c = split(line);
    REQUIRE(c.size() == header.size());
    const std::pair<int, int> at{std::stoi(c[c.size() - 2]), std::stoi(c.back())};
    const auto key = std::make_pair(c[1], static_cast<int>(std::stod(c[0])));
    const auto [it, fresh] = fleet.emplace(key, at);
    CHECK(it->second == at);
  }
  const auto at = [&](const std::string& pool, int s) {
    INFO(pool << " at " << s << " s");
    REQUIRE(fleet.count({pool, s}) == 1);
    return fleet.at({pool, s});
  };
  using P = std::pair<int, int>;
  // Starts at 10.5 s (paid), serves from 12.5 s (2 s cold start), drains idle at 20.5 s.
  CHECK(at("scaled", 9) == P{1, 1});
  CHECK(at("scaled", 10) == P{1, 3});
  CHECK(at("scaled", 11) == P{1, 3});
  CHECK(at("scaled", 12) == P{3, 3});
  CHECK(at("scaled", 19) == P{3, 3});
  CHECK(at("scaled", 20) == P{1, 1});
  CHECK(at("scaled", 25) == P{1, 1});
  for (int s : {1, 10, 12, 20, 25}) CHECK(at("fixed", s) == P{1, 1});
}

TEST_CASE("autoscale timeseries columns appear only when a pool autoscales", "[cluster][autoscale][timeseries]") {
  TempDir dir("autoscale-timeseries-fixed");
  const auto out = dir.path / "out";
  const CliResult r = run_cli("run scenarios/quickstart.yaml --quiet --set stop.requests=50 --set outputs.timeseries=true --out " +
                              out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::stringstream csv(read_file(out / "timeseries.csv"));
  std::string line;
  std::getline(csv, line);
  CHECK(line == servesim::TimeseriesWriter::kHeader);
}

}  // namespace autoscale_timeseries_test
