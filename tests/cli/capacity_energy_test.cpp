// `capacity --objective energy` (docs/sweeps.md, "servesim capacity"): the same answer as the
// load objective, with the energy of every trial and of the run at capacity. Worked by hand
// on the M/D/1 set-up of capacity_test.cpp, whose constant 10 ms steps carry no FLOPs or
// bytes: the H100 draws its idle power, 70 W (configs/hardware/h100-sxm.yaml idle_power_w),
// from the run's start to its end (docs/energy.md).
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

namespace capacity_energy_test {

using namespace servesim::testing;
using nlohmann::json;

// 2,000 requests, one token out each; the search starts at 20 req/s and stops at
// --max-rate 40 (both feasible under a 1-hour bound): two trials.
struct Md1 {
  TempDir dir{"capacity-energy"};
  std::filesystem::path scenario = dir.write("md1.yaml", md1_scenario(20, 2000));

  CliResult capacity(const std::string& extra) const {
    return run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --max-rate 40 " + extra);
  }
};

TEST_CASE("capacity: the energy objective reports the run at capacity's energy worked from the idle power", "[sweep][energy]") {
  const Md1 m;
  const auto out = m.dir.path / "out";
  const auto r = m.capacity("--set cluster.energy.price_per_kwh=0.12 --objective energy --out " + out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(read_file(out / "capacity.json"));
  CHECK(j["objective"] == "energy");
  CHECK(j["capacity"] == 40.0);  // the answer does not move: the load objective's, capped
  const json& e = j["energy"];
  // Idle power all run: 70 W mean and peak.
  CHECK(e["mean_power_w"].get<double>() == Approx(70.0).epsilon(1e-12));
  CHECK(e["peak_power_w"].get<double>() == Approx(70.0).epsilon(1e-12));
  // 70 W over the run, which starts at 0 while `duration` starts at the first arrival
  // (~25 ms after it at 40 req/s, of ~50 s): within 0.1%.
  const double duration_s = j["figures"]["duration"].get<double>();
  CHECK(e["energy_kwh"].get<double>() == Approx(70.0 * duration_s / 3.6e6).epsilon(1e-3));
  // One output token per request: J per output token is the run's joules over 2,000.
  REQUIRE(j["figures"]["total_output_tokens"] == 2000);
  const double j_per_token = e["energy_per_output_token_j"].get<double>();
  CHECK(j_per_token == Approx(e["energy_kwh"].get<double>() * 3.6e6 / 2000).epsilon(1e-12));
  // USD 0.12 per kWh: 0.070 kW for an hour is USD 0.0084; per 1M output tokens, 1e6 J-per-token
  // worth of kWh at the price.
  CHECK(e["energy_cost_per_hour"].get<double>() == Approx(0.0084).epsilon(1e-12));
  CHECK(e["energy_cost_per_1m_output_tokens"].get<double>() == Approx(j_per_token * 1e6 / 3.6e6 * 0.12).epsilon(1e-12));

  // Each trial's figures. At twice the rate the same 2,000 arrivals (common random numbers:
  // the same draws, at half the gaps) come in half the time at the same idle power: half the
  // joules per token, to the drain's 10 ms in ~50 s.
  REQUIRE(j["trials"].size() == 2);
  const json& at20 = j["trials"][0];
  const json& at40 = j["trials"][1];
  CHECK(at20["value"] == 20.0);
  CHECK(at20["mean_power_w"].get<double>() == Approx(70.0).epsilon(1e-12));
  CHECK(at40["energy_per_output_token_j"].get<double>() == Approx(j_per_token).epsilon(1e-12));
  CHECK(at20["energy_per_output_token_j"].get<double>() / j_per_token == Approx(2.0).epsilon(1e-3));
  // So the feasible trial that spent least per token is the one at capacity.
  CHECK(e["least_energy"]["value"] == 40.0);

  // The console: each trial's J per output token and the energy line at capacity.
  CHECK(r.output.find("J/out tok ") != std::string::npos);
  CHECK(r.output.find("J per output token, 70.0 W mean (peak 70.0 W), ") != std::string::npos);
  CHECK(r.output.find(" kWh over the run; $0.0084/hour of electricity, $") != std::string::npos);
  // At capacity already: no second line for the least energy.
  CHECK(r.output.find("least energy per output token") == std::string::npos);
}

TEST_CASE("capacity: the load objective writes capacity.json as before even on a metered scenario", "[sweep][energy]") {
  const Md1 m;
  const auto r = m.capacity("--set 'cluster.energy={}' --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  CHECK(!j.contains("objective"));
  CHECK(!j.contains("energy"));
  CHECK(!j["trials"][0].contains("energy_per_output_token_j"));
  CHECK(j["figures"]["energy"]["mean_power_w"].get<double>() == Approx(70.0).epsilon(1e-12));  // the summary has it
  CHECK(run_cli("capacity " + m.scenario.string() + " --slo e2el_p99=1h --max-rate 40 --set 'cluster.energy={}'")
            .output.find("energy at capacity") == std::string::npos);
}

TEST_CASE("capacity: the energy objective without cluster.energy is a usage error naming the key", "[sweep][energy]") {
  const Md1 m;
  const auto none = m.capacity("--objective energy --out " + (m.dir.path / "none").string());
  CHECK(none.exit_code == 2);
  CHECK(none.output.find("md1.yaml: cluster.energy: --objective energy reports the energy per output token at "
                         "capacity, which only a scenario with cluster.energy meters") != std::string::npos);
  // Refused before any run: no trial line, no folder.
  CHECK(none.output.find("req/s  ok") == std::string::npos);
  CHECK(!std::filesystem::exists(m.dir.path / "none"));
  const auto bad = m.capacity("--objective cost");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("objective: must be load or energy, got 'cost'") != std::string::npos);
}

}  // namespace capacity_energy_test
