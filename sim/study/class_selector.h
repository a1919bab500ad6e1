#pragma once
// `--class NAME` of `capacity` and `search`: the workload class a study judges (and, for
// capacity, whose rate it scales), found by name; a misspelt name is refused with the
// nearest class named, as a misspelt scenario key is.
#include <string>

#include "sim/scenario/scenario.h"

namespace servesim {

// The index of the class named `name` in `scenario.workload`. Throws ConfigError(path, 0,
// "--class", ...) with "did you mean" (or the list of classes) when none is.
int class_index_or_throw(const Scenario& scenario, const std::string& name, const std::string& path);

}  // namespace servesim
