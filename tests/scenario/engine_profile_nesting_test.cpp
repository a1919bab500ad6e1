// An engine preset file may start from one bundled preset (a calibrated profile does).
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace engine_profile_nesting_test {

using namespace servesim;

namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/servesim_profile_nesting_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string scenario_with_preset(const std::string& preset_path) {
  return write("scenario.yaml",
               "name: nesting\nseed: 1\nstop: {requests: 10}\n"
               "workload:\n  - class: chat\n    arrival: {process: poisson, rate: 1}\n"
               "    input: {fixed: 100}\n    output: {fixed: 10}\n"
               "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      hardware: h100-sxm\n"
               "      model: llama-3-8b\n      engine: {preset: " + preset_path + "}\n");
}

}  // namespace

TEST_CASE("A profile that names a bundled preset keeps the preset's keys and sets its own", "[scenario][engine]") {
  const std::string profile = write("profile.yaml", "preset: vllm\noverheads:\n  per_step: 412.5us\n  per_token: 3us\n");
  const Scenario s = load_scenario(scenario_with_preset(profile));
  const EngineConfig& e = s.cluster.pools.front().engine;
  CHECK(e.preset == "vllm");  // the engine's kernel tables follow the inner preset
  CHECK(e.max_num_seqs == 1024);
  CHECK(e.async_scheduling);
  CHECK(e.overheads.per_step_ns == 412'500);
  CHECK(e.overheads.per_token_ns == 3'000);
  CHECK(e.overheads.frontend_ns == 764'000);  // the preset's, untouched
}

TEST_CASE("Presets nest one level only", "[scenario][engine]") {
  const std::string inner = write("inner.yaml", "preset: vllm\nmax_num_seqs: 8\n");
  const std::string outer = write("outer.yaml", "preset: " + inner + "\n");
  try {
    load_scenario(scenario_with_preset(outer));
    FAIL("nested twice without an error");
  } catch (const ConfigError& e) {
    CHECK(e.file() == inner);
    CHECK(e.key().find("preset") != std::string::npos);
  }
}

}  // namespace engine_profile_nesting_test
