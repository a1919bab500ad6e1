#pragma once
#include <string>
#include <vector>

namespace servesim {
// Names of the scheduling policies built in (engine/scheduler registry), for validation.
std::vector<std::string> scheduling_policy_names();
}  // namespace servesim
