#pragma once
// One run of a scenario as a library call (`servesim run` without its files): the summary,
// the counts and how the engine's fast paths ran.
#include <cstdint>
#include <optional>

#include "sim/cluster/simulation.h"
#include "sim/scenario/scenario.h"

namespace servesim {

// How the run's steps ran, over every replica (docs/performance.md): decode tokens advanced
// lazily, quiet stretches run as one event, and the steps priced for them.
struct EngineStats {
  std::int64_t lazy_decode_tokens = 0;
  std::int64_t decode_runs = 0;
  std::int64_t decode_run_steps = 0;
  std::int64_t decode_run_priced_steps = 0;
};

struct RunOutcome {
  RunResult result;
  EngineStats engine;
};

// Runs `scenario` once, with `seed` in place of its own when given.
RunOutcome run_scenario(const Scenario& scenario, std::optional<std::uint64_t> seed = std::nullopt);

}  // namespace servesim
