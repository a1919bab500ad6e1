#pragma once
// Shared helpers for the what-if library tests: run a bundled scenario of scenarios/ with
// --set overrides and read figures out of its summary.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace servesim::whatif {

inline std::string scenario_path(const std::string& file) {
  return std::string(SERVESIM_SOURCE_DIR) + "/scenarios/" + file;
}

inline RunResult run_scenario(const std::string& file, const std::vector<std::string>& sets = {}) {
  Scenario s = load_scenario(scenario_path(file), sets);
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  return sim.run();
}

inline const SummaryBlock& class_of(const RunResult& r, const std::string& name) {
  for (const auto& [n, b] : r.summary.classes)
    if (n == name) return b;
  FAIL("no class " << name);
  return r.summary.overall;
}

// summary.json's block of pool `name` (fails the test without one).
inline const SummaryBlock& pool_of(const RunResult& r, const std::string& name) {
  for (const auto& [n, b] : r.summary.pools)
    if (n == name) return b;
  FAIL("no pool " << name);
  return r.summary.overall;
}

// A field of one of a block's JSON objects (ttft_attribution, itl_attribution, ...).
inline double object_field(const SummaryBlock& b, const std::string& object, const std::string& field) {
  for (const auto& group : b.objects)
    if (group.name == object)
      for (const auto& [name, value] : group.fields)
        if (name == field) return value;
  FAIL("no " << object << "." << field << " in the summary");
  return 0;
}

// Relative change from `before` to `after` (-0.4 is a 40% fall).
inline double change(double before, double after) { return (after - before) / before; }

}  // namespace servesim::whatif
