// `search` with cluster.energy and a price per kWh (docs/energy.md): a candidate's cost per
// hour adds its fleet's electricity at the run's mean power. Worked by hand on steps
// without FLOPs or bytes, which draw idle power.
#include <catch2/catch.hpp>

#include <fstream>

#include "cli/cli_test_util.h"
#include <nlohmann/json.hpp>

namespace search_energy_test {

using namespace servesim::testing;

TEST_CASE("search: with an energy price a candidate's cost per hour adds its electricity", "[search][energy]") {
  TempDir dir("search-energy");
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1]\n");
  // One H100 (USD 3.00 per GPU-hour) whose constant 10 ms steps draw its 70 W idle power all
  // run: 0.07 kW x USD 100 per kWh = USD 7 an hour more, USD 10 in all.
  const std::string cmd = "search scenarios/quickstart.yaml --space " + space.string() +
                          " -q --set 'cluster.pools.0.cost_model={constant: {step: 10ms}}' --out ";
  const auto priced = run_cli(cmd + (dir.path / "priced").string() + " --set cluster.energy.price_per_kwh=100");
  INFO(priced.output);
  REQUIRE(priced.exit_code == 0);
  const auto plain = run_cli(cmd + (dir.path / "plain").string());
  REQUIRE(plain.exit_code == 0);
  const auto row = [&](const char* name) {
    std::ifstream in(dir.path / name / "search.json");
    return nlohmann::json::parse(in)["rows"][0];
  };
  CHECK(row("plain")["cost_per_hour"].get<double>() == Approx(3.0).epsilon(1e-12));
  CHECK(row("priced")["cost_per_hour"].get<double>() == Approx(10.0).epsilon(1e-9));
}

}  // namespace search_energy_test
