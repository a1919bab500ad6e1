#pragma once
// A short, human-readable description of a validated scenario: its classes, pools,
// replicas, models and hardware, as `servesim validate` prints it. Nothing is derived
// (no capacities or rates), so the text is exactly what the file says, defaults filled in.
#include <string>

#include "sim/scenario/scenario.h"

namespace servesim {

std::string describe_scenario(const Scenario& scenario);
// One workload class as describe_scenario lists it: "NAME: ARRIVAL; input ...; output ...; slo ...".
std::string describe_workload_class(const ClassSpec& spec);
// One pool's cost model as validate and run name it: "kernels (h100_sxm/vllm-0.14.0
// tables; ...)", "roofline", "table PATH", ...
std::string describe_cost_model(const CostModelSpec& spec);

// "250ms", "2s", "1.5m"-style text for a duration, choosing the largest unit that gives a
// value of at least 1 (used in summaries and messages).
std::string format_duration(Tick ns);

}  // namespace servesim
