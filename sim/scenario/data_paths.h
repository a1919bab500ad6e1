#pragma once
// Files a scenario points at (traces, empirical distributions, cost tables) are found with
// resolve_data_path() and must exist when the scenario is loaded, so a typo in a path fails
// at `validate` rather than minutes into a run.
#include <string>

#include "sim/scenario/yaml_helpers.h"

namespace servesim {

// The resolved path of the file named by `field` (a text value). `what` names the file in
// the error ("trace file", "cost table").
std::string existing_data_path(const Field& field, const std::string& what);

}  // namespace servesim
