#pragma once
// A run's energy as the studies read it (search's objectives, capacity's energy at the
// answer): the overall block's `energy` object, which sim/metrics/energy_meter.cpp writes
// for a scenario with cluster.energy (docs/energy.md).
#include <optional>
#include <string>

#include "sim/metrics/summary.h"

namespace servesim {

// A field of the overall block's energy object ("energy_kwh", "mean_power_w",
// "energy_per_output_token_j", ...); empty without it (no cluster.energy, or no output
// token for the per-token figure).
std::optional<double> overall_energy_field(const RunSummary& summary, const std::string& field);

// USD an hour of the fleet's mean power costs at `price_per_kwh`: the overall block's
// energy.mean_power_w (W) over 1000 W per kW, for one hour. 0 without the figure.
double energy_cost_per_hour(const RunSummary& summary, double price_per_kwh);

}  // namespace servesim
