#include "sim/study/run_energy.h"

namespace servesim {

std::optional<double> overall_energy_field(const RunSummary& summary, const std::string& field) {
  for (const FieldGroup& g : summary.overall.objects)
    if (g.name == "energy")
      for (const auto& [name, value] : g.fields)
        if (name == field) return value;
  return std::nullopt;
}

double energy_cost_per_hour(const RunSummary& summary, double price_per_kwh) {
  return overall_energy_field(summary, "mean_power_w").value_or(0) / 1000.0 * price_per_kwh;
}

}  // namespace servesim
