#pragma once
// The capacity study's result as users read it (docs/sweeps.md, "servesim capacity"):
// capacity.json, one console line per trial, and the closing lines.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/study/capacity_study.h"

namespace servesim {

// capacity.json: scenario, keys, slo, unit, feasible, capacity, capped, lowest_infeasible,
// figures (summary.json of the run at capacity), trials, sustain_tolerance, and
// replicates when the study ran several seeds; with --objective energy also objective,
// energy (the run at capacity's kWh, J per output token, mean and peak W, electricity per
// hour and per 1M output tokens, the feasible trial with the least J per output token) and
// each trial's energy_per_output_token_j and mean_power_w.
nlohmann::ordered_json capacity_to_json(const CapacityStudy& study, double sustain_tolerance);

// "servesim capacity: NAME, searching KEY for SLOs": the line before the trials.
void print_capacity_header(const CapacityPlan& plan, std::ostream& out);
// One trial: value, ok/FAIL, the SLO figures or the reasons, and how long it ran.
void print_capacity_trial(const CapacityPlan& plan, const CapacityTrialRun& trial, std::ostream& out);
// The answer: "capacity: X UNIT (Y fails)", the interval over seeds, each key's value and
// the figures at capacity (with --objective energy, its energy); or "no feasible value:
// ..." when there is none.
void print_capacity_result(const CapacityStudy& study, std::ostream& out);

}  // namespace servesim
