#pragma once
// Reads the scenario's `workload:` list into validated ClassSpecs (docs/scenario.md,
// "workload"). Each class is either synthetic (`arrival` + `input` or `prompt` + `output`,
// optionally in `session`s), a timed trace (`trace` with format azure, vidur, mooncake or
// csv), or a length-only trace plus a synthetic `arrival` (format lengths).
#include <string>
#include <vector>

#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/workload_config.h"

namespace servesim {

// Throws ConfigError at the offending key; class names must be unique.
std::vector<ClassSpec> parse_workload(const Field& workload);

// The names of the arrival processes, in the order of ArrivalSpec::Process.
std::string arrival_process_name(ArrivalSpec::Process process);

}  // namespace servesim
