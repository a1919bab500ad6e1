#pragma once
// scenario_context (scenario_context.h) as JSON text, for programs that see a Scenario only
// through the public header (the Python package keeps it to describe a run's HTML page).
#include <string>

namespace servesim {

struct Scenario;

// The JSON `servesim run` writes to run_context.json for `scenario`.
std::string scenario_context_text(const Scenario& scenario);

}  // namespace servesim
