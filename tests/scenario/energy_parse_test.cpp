// `cluster.energy`, `engine.power_cap_w` and a hardware profile's power figures: bad input is
// a ConfigError naming the file, the line and the key (docs/energy.md).
#include <catch2/catch.hpp>
#include <string>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/model_loader.h"
#include "sim/scenario/scenario_loader.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::kTinyGpuYaml;
using servesim::testing::ScenarioDir;

namespace servesim::energy_parse_test {
namespace {

ConfigError load_error(const ScenarioDir& dir, const std::string& yaml) {
  try {
    load_scenario(dir.write("bad.yaml", yaml));
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for:\n" << yaml);
  return ConfigError("", 0, "", "");
}

// tiny-gpu with power figures, as powered-gpu.yaml.
void write_powered_gpu(const ScenarioDir& dir) {
  dir.write("powered-gpu.yaml", std::string(kTinyGpuYaml) + "tdp_w: 700\nidle_power_w: 70\nmemory_power_fraction: 0.5\n");
}

// kMinimalScenario on powered-gpu.yaml, with `engine_line` as line 11 and `extra` after line 12.
std::string scenario(const std::string& engine_line, const std::string& extra) {
  // From the last line edited up, so each edit's line number is kMinimalScenario's.
  std::string yaml = edit_line(kMinimalScenario, 12, "  router: round-robin" + (extra.empty() ? "" : "\n" + extra));
  yaml = edit_line(yaml, 11, engine_line);
  return edit_line(yaml, 9, "      hardware: powered-gpu.yaml");
}

}  // namespace

TEST_CASE("energy parse: cluster.energy and power_cap_w load", "[scenario][energy]") {
  ScenarioDir dir;
  write_powered_gpu(dir);
  const Scenario s = load_scenario(
      dir.write("ok.yaml", scenario("      engine: {policy: continuous, power_cap_w: 450}", "  energy: {price_per_kwh: 0.12}")));
  REQUIRE(s.cluster.energy.has_value());
  CHECK(s.cluster.energy->price_per_kwh == 0.12);
  CHECK(s.cluster.pools[0].engine.power_cap_w == 450);
  CHECK(s.cluster.pools[0].hardware.tdp_w == 700);
  CHECK(s.cluster.pools[0].hardware.idle_power_w == 70);
  CHECK(s.cluster.pools[0].hardware.memory_power_fraction == 0.5);
  // An empty section meters with no price.
  const Scenario bare = load_scenario(dir.write("bare.yaml", scenario("      engine: {policy: continuous}", "  energy:")));
  REQUIRE(bare.cluster.energy.has_value());
  CHECK(bare.cluster.energy->price_per_kwh == 0);
}

TEST_CASE("energy parse: a misspelt key of cluster.energy names its line", "[scenario][energy]") {
  ScenarioDir dir;
  write_powered_gpu(dir);
  const ConfigError e =
      load_error(dir, scenario("      engine: {policy: continuous}", "  energy:\n    price_per_kwhh: 0.12"));
  CHECK(e.file() == dir.path("bad.yaml"));
  CHECK(e.line() == 14);
  CHECK(e.key() == "cluster.energy.price_per_kwhh");
}

TEST_CASE("energy parse: a negative price is refused at its line", "[scenario][energy]") {
  ScenarioDir dir;
  write_powered_gpu(dir);
  const ConfigError e = load_error(dir, scenario("      engine: {policy: continuous}", "  energy: {price_per_kwh: -1}"));
  CHECK(e.line() == 13);
  CHECK(e.key() == "cluster.energy.price_per_kwh");
}

TEST_CASE("energy parse: energy on hardware without power figures names the pool", "[scenario][energy]") {
  ScenarioDir dir;
  std::string yaml = edit_line(kMinimalScenario, 12, "  router: round-robin\n  energy: {}");
  const ConfigError e = load_error(dir, yaml);
  CHECK(e.file() == dir.path("bad.yaml"));
  CHECK(e.line() == 13);
  CHECK(e.key() == "cluster.energy");
  CHECK_THAT(e.message(), Catch::Contains("pool 'main'") && Catch::Contains("tiny-gpu"));
}

TEST_CASE("energy parse: a power cap at or below idle power or above the TDP is refused", "[scenario][energy]") {
  ScenarioDir dir;
  write_powered_gpu(dir);
  for (const char* cap : {"70", "701", "20"}) {
    INFO(cap);
    const ConfigError e = load_error(dir, scenario(std::string("      engine:\n        power_cap_w: ") + cap, ""));
    CHECK(e.line() == 12);
    CHECK(e.key() == "cluster.pools.0.engine.power_cap_w");
  }
  const ConfigError zero = load_error(dir, scenario("      engine: {power_cap_w: 0}", ""));
  CHECK(zero.key() == "cluster.pools.0.engine.power_cap_w");
  // Without power figures a cap cannot be priced.
  std::string yaml = edit_line(kMinimalScenario, 11, "      engine: {power_cap_w: 300}");
  const ConfigError none = load_error(dir, yaml);
  CHECK(none.key() == "cluster.pools.0.engine.power_cap_w");
  CHECK_THAT(none.message(), Catch::Contains("no power figures"));
}

TEST_CASE("energy parse: a hardware profile gives its power figures together", "[scenario][energy]") {
  ScenarioDir dir;
  const std::string base = kTinyGpuYaml;  // 6 lines
  struct Case {
    std::string extra;
    int line;
    std::string key;
  };
  for (const Case& c : {Case{"idle_power_w: 70\n", 7, "idle_power_w"},
                        Case{"tdp_w: 700\nmemory_power_fraction: 0.5\n", 7, "tdp_w"},
                        Case{"tdp_w: 700\nidle_power_w: 70\n", 7, "tdp_w"},
                        Case{"tdp_w: 700\nidle_power_w: 700\nmemory_power_fraction: 0.5\n", 8, "idle_power_w"},
                        Case{"tdp_w: 700\nidle_power_w: 70\nmemory_power_fraction: 1.5\n", 9, "memory_power_fraction"},
                        Case{"tdp_w: -5\nidle_power_w: 70\nmemory_power_fraction: 0.5\n", 7, "tdp_w"},
                        Case{"tdp_watts: 700\n", 7, "tdp_watts"}}) {
    INFO(c.extra);
    const std::string path = dir.write("gpu.yaml", base + c.extra);
    try {
      load_hardware_file(path);
      FAIL("no ConfigError");
    } catch (const ConfigError& e) {
      CHECK(e.file() == path);
      CHECK(e.line() == c.line);
      CHECK(e.key() == c.key);
    }
  }
}

}  // namespace servesim::energy_parse_test
