#pragma once
// Test helper: the ConfigError a scenario's YAML raises when it is loaded; the test fails
// if it loads.
#include <catch2/catch.hpp>
#include <string>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace servesim::testing {

inline ConfigError scenario_load_error(const std::string& yaml) {
  ScenarioDir dir;
  try {
    load_scenario(dir.write("s.yaml", yaml));
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no error for\n" << yaml);
  return ConfigError("", 0, "", "");
}

}  // namespace servesim::testing
