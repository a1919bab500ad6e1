#pragma once
// One run of a scenario as a library call (`servesim run` without its files): the summary,
// the counts and how the engine's fast paths ran.
#include <cstdint>
#include <optional>

#include "sim/metrics/run_result.h"

namespace servesim {

struct Scenario;

// Runs `scenario` once, with `seed` in place of its own when given.
RunOutcome run_scenario(const Scenario& scenario, std::optional<std::uint64_t> seed = std::nullopt);

}  // namespace servesim
