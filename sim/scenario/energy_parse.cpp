#include "sim/scenario/energy_parse.h"

#include "sim/hardware/power_model.h"

namespace servesim {

namespace {

const std::vector<std::string> kEnergyKeys = {"price_per_kwh"};

std::string watts(double w) { return format_number(w) + " W"; }

}  // namespace

EnergySpec parse_energy(const Field& f, const ClusterConfig& cluster) {
  EnergySpec spec;
  if (!f.is_null()) {
    f.expect_map(kEnergyKeys);
    if (auto v = f.get("price_per_kwh")) spec.price_per_kwh = v->non_negative_double();
  }
  for (const PoolConfig& p : cluster.pools) {
    if (!PowerModel::available(p.hardware)) {
      f.fail_at_key("pool '" + p.name + "' runs on hardware '" + p.hardware.name +
                    "', which gives no power figures (tdp_w, idle_power_w, memory_power_fraction; docs/energy.md)");
    }
  }
  return spec;
}

void check_power_cap(const Field& engine, const PoolConfig& pool) {
  const double cap = pool.engine.power_cap_w;
  if (cap <= 0) return;
  const std::optional<Field> at = engine.get("power_cap_w");
  // A cap from an engine preset has no line of its own: the engine block stands for it.
  const Field& where = at ? *at : engine;
  if (!PowerModel::available(pool.hardware)) {
    where.fail("hardware '" + pool.hardware.name +
               "' gives no power figures (tdp_w, idle_power_w, memory_power_fraction), which a power cap needs");
  }
  if (!(cap > pool.hardware.idle_power_w) || cap > pool.hardware.tdp_w) {
    where.fail("must lie above the idle power (" + watts(pool.hardware.idle_power_w) + ") and at most the TDP (" +
               watts(pool.hardware.tdp_w) + ") of hardware '" + pool.hardware.name + "', got " + watts(cap));
  }
}

}  // namespace servesim
