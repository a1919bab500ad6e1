// The two `lora:` blocks, a class's adapters and an engine's slots: what loads, and bad input
// as a ConfigError naming the file, the line and the key (docs/lora.md).
#include <catch2/catch.hpp>
#include <string>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::kTinyGpuYaml;
using servesim::testing::ScenarioDir;

namespace servesim::lora_parse_test {
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

// kMinimalScenario on a GPU with a host link, `class_line` as line 5 (after the class's
// output) and `engine_line` as line 11.
std::string scenario(const ScenarioDir& dir, const std::string& class_line, const std::string& engine_line) {
  dir.write("linked-gpu.yaml", std::string(kTinyGpuYaml) + "host_link_bandwidth_gb_s: 64\n");
  std::string yaml = edit_line(kMinimalScenario, 11, engine_line);
  yaml = edit_line(yaml, 9, "      hardware: linked-gpu.yaml");
  return edit_line(yaml, 5, "    output: {fixed: 10}\n" + class_line);
}

const std::string kEngine = "      engine: {policy: chunked-prefill, lora: {max_loras: 4, max_cpu_loras: 8, disk_gb_s: 2}}";

}  // namespace

TEST_CASE("lora parse: a class's adapters and the engine's slots load", "[scenario][lora]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write(
      "ok.yaml", scenario(dir, "    lora: {adapters: 16, distribution: zipf, exponent: 1.2, first_adapter: 3}", kEngine)));
  REQUIRE(s.workload[0].lora.has_value());
  CHECK(s.workload[0].lora->adapters == 16);
  CHECK(s.workload[0].lora->first_adapter == 3);
  CHECK(s.workload[0].lora->distribution == LoraDemandSpec::Distribution::zipf);
  CHECK(s.workload[0].lora->zipf_exponent == 1.2);
  const LoraConfig& l = s.cluster.pools[0].engine.lora;
  CHECK(l.enabled);
  CHECK(l.max_loras == 4);
  CHECK(l.max_cpu_loras == 8);
  CHECK(l.max_lora_rank == 16);  // vLLM's default
  CHECK(l.disk_bytes_per_s == 2e9);
  CHECK_FALSE(l.adapter_bytes_given);
}

TEST_CASE("lora parse: max_cpu_loras defaults to max_loras", "[scenario][lora]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write(
      "ok.yaml", scenario(dir, "    lora: {adapters: 2}", "      engine: {policy: chunked-prefill, lora: {max_loras: 3, disk_gb_s: 2}}")));
  CHECK(s.cluster.pools[0].engine.lora.max_cpu_loras == 3);
  CHECK(s.workload[0].lora->distribution == LoraDemandSpec::Distribution::uniform);
}

TEST_CASE("lora parse: bad keys and values name their line and key", "[scenario][lora]") {
  ScenarioDir dir;
  const ConfigError typo = load_error(dir, scenario(dir, "    lora: {adaptors: 4}", kEngine));
  CHECK(typo.file() == dir.path("bad.yaml"));
  CHECK(typo.line() == 6);
  CHECK(typo.key().find("lora.adaptors") != std::string::npos);

  const ConfigError exponent = load_error(dir, scenario(dir, "    lora: {adapters: 4, exponent: 1.1}", kEngine));
  CHECK(exponent.line() == 6);
  CHECK(exponent.key().find("lora.exponent") != std::string::npos);

  const ConfigError cpu = load_error(
      dir, scenario(dir, "    lora: {adapters: 4}",
                    "      engine: {policy: chunked-prefill, lora: {max_loras: 4, max_cpu_loras: 2, disk_gb_s: 2}}"));
  CHECK(cpu.line() == 12);
  CHECK(cpu.key().find("lora.max_cpu_loras") != std::string::npos);

  const ConfigError rank = load_error(
      dir, scenario(dir, "    lora: {adapters: 4}",
                    "      engine: {policy: chunked-prefill, lora: {max_lora_rank: 12, disk_gb_s: 2}}"));
  CHECK(rank.key().find("lora.max_lora_rank") != std::string::npos);

  const ConfigError disk = load_error(
      dir, scenario(dir, "    lora: {adapters: 4}", "      engine: {policy: chunked-prefill, lora: {max_loras: 2}}"));
  CHECK(disk.key() == "cluster.pools.0.engine.lora");  // the block missing it
  CHECK(std::string(disk.what()).find("missing required key 'disk_gb_s'") != std::string::npos);

  const ConfigError unserved = load_error(dir, scenario(dir, "    lora: {adapters: 4}", "      engine: {policy: chunked-prefill}"));
  CHECK(unserved.line() == 6);
  CHECK(unserved.key() == "workload.0.lora");

  const ConfigError policy = load_error(
      dir, scenario(dir, "    lora: {adapters: 4}", "      engine: {policy: continuous, lora: {disk_gb_s: 2}}"));
  CHECK(policy.line() == 12);
  CHECK(policy.key().find("lora") != std::string::npos);
}

}  // namespace servesim::lora_parse_test
