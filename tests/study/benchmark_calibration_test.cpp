// The request side of `calibrate --from-benchmark`: the knobs, the stages and the command
// line the written engine profile records.
#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/study/benchmark_calibration.h"

namespace benchmark_calibration_test {

using namespace servesim;

namespace {

BenchmarkCalibrationRequest request_of(const std::string& fit_list, const std::string& fit_stages) {
  BenchmarkCalibrationRequest r;
  r.bench_path = "b.json";
  r.scenario_path = "s.yaml";
  r.sets = {"a=1", "b.c=2"};
  r.fit_list = fit_list;
  r.fit_stages = fit_stages;
  return r;
}

}  // namespace

TEST_CASE("benchmark calibration: the knobs of --fit in order with empty items skipped", "[study][calibrate]") {
  CHECK(calibration_knobs(request_of("per_token,,per_step", "")) == std::vector<std::string>{"per_token", "per_step"});
  CHECK(calibration_knobs(request_of("", "")).empty());
}

TEST_CASE("benchmark calibration: the profile's command names --fit from requests only when it was given",
          "[study][calibrate]") {
  BenchmarkCalibrationRequest r = request_of("per_step", "0,2");
  CHECK(benchmark_calibration_command(r, false) ==
        "servesim calibrate --from-benchmark b.json --scenario s.yaml --set a=1 --set b.c=2");
  r.fit_given = true;
  CHECK(benchmark_calibration_command(r, false) ==
        "servesim calibrate --from-benchmark b.json --scenario s.yaml --set a=1 --set b.c=2 --fit per_step");
  r.fit_given = false;
  CHECK(benchmark_calibration_command(r, true) ==
        "servesim calibrate --from-benchmark b.json --scenario s.yaml --set a=1 --set b.c=2 --fit per_step "
        "--fit-stages 0,2");
}

TEST_CASE("benchmark calibration: a stage that is not a number is a ConfigError on --fit-stages",
          "[study][calibrate]") {
  try {
    calibrate_to_aggregates(BenchmarkSummary{}, Scenario{}, request_of("per_step", "0,x"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.file().empty());
    CHECK(e.key() == "--fit-stages");
    CHECK(e.message() == "'x' is not a stage number (0, 1, ...; comma-separated)");
  }
}

TEST_CASE("benchmark calibration: the base preset is the first pool's engine preset", "[study][calibrate]") {
  Scenario scenario;
  CHECK(calibration_base_preset(scenario).empty());
  scenario.cluster.pools.resize(2);
  scenario.cluster.pools[0].engine.preset = "sglang";
  scenario.cluster.pools[1].engine.preset = "vllm";
  CHECK(calibration_base_preset(scenario) == "sglang");
}

}  // namespace benchmark_calibration_test
