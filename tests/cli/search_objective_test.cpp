// `search --objective` (docs/sweeps.md): the feasible candidates ranked by cost per hour, by
// the energy per output token, or by GPU plus electricity cost per hour. Worked by hand on
// steps without FLOPs or bytes, which draw the hardware's idle power (docs/energy.md).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "cli/cli_test_util.h"
#include <nlohmann/json.hpp>

namespace search_objective_test {

using namespace servesim::testing;

// Two candidates, one GPU each, that run the same schedule: constant 10 ms steps ignore the
// hardware, and both boards have 80 GB, so both runs last the same D seconds and produce the
// same N output tokens. Each draws its idle power all run (configs/hardware/*.yaml
// idle_power_w): the H100 70 W, the A100 SXM 50 W, so 70 D / N against 50 D / N J per output
// token, a ratio of 1.4. At USD 1.00 per H100-hour (--price) against the A100's USD 1.80 the
// H100 is the cheaper GPU and the hungrier one.
struct TwoBoards {
  TempDir dir{"search-objective"};
  std::filesystem::path space = dir.write("space.yaml", "cluster.pools.0.hardware: [a100-80g-sxm, h100-sxm]\n");

  CliResult search(const std::string& name, const std::string& extra) const {
    return run_cli("search scenarios/quickstart.yaml --space " + space.string() +
                   " -q --set stop.requests=300 --set 'cluster.pools.0.cost_model={constant: {step: 10ms}}'"
                   " --price h100-sxm=1.00 --out " + (dir.path / name).string() + " " + extra);
  }
  nlohmann::json result(const std::string& name) const {
    std::ifstream in(dir.path / name / "search.json");
    return nlohmann::json::parse(in);
  }
};

TEST_CASE("search: the energy objective ranks the GPU that draws less first where cost ranks the cheaper", "[search][energy]") {
  const TwoBoards b;
  const auto by_cost = b.search("cost", "--set 'cluster.energy={}'");
  INFO(by_cost.output);
  REQUIRE(by_cost.exit_code == 0);
  const auto by_energy = b.search("energy", "--set 'cluster.energy={}' --objective energy");
  INFO(by_energy.output);
  REQUIRE(by_energy.exit_code == 0);

  const auto cost = b.result("cost"), energy = b.result("energy");
  CHECK(cost["winner"] == 1);  // the H100 at USD 1.00 an hour
  CHECK(cost["ranking"] == nlohmann::json::array({1, 0}));
  CHECK(!cost.contains("objective"));
  CHECK(energy["winner"] == 0);  // the A100 at 50 W
  CHECK(energy["ranking"] == nlohmann::json::array({0, 1}));
  CHECK(energy["objective"] == "energy");

  const auto& a100 = energy["rows"][0];
  const auto& h100 = energy["rows"][1];
  CHECK(a100["cost_per_hour"].get<double>() == Approx(1.80).epsilon(1e-12));
  CHECK(h100["cost_per_hour"].get<double>() == Approx(1.00).epsilon(1e-12));
  const double a100_j = a100["energy_per_output_token_j"].get<double>();
  const double h100_j = h100["energy_per_output_token_j"].get<double>();
  CHECK(h100_j / a100_j == Approx(70.0 / 50.0).epsilon(1e-9));
  CHECK(h100["energy_kwh"].get<double>() / a100["energy_kwh"].get<double>() == Approx(70.0 / 50.0).epsilon(1e-9));
  CHECK(h100["energy_cost_per_hour"].is_null());  // no price per kWh
  // The rows of the cost run carry the same figures: the objective changes the order alone.
  CHECK(cost["rows"][0]["energy_per_output_token_j"].get<double>() == Approx(a100_j).epsilon(1e-12));
  CHECK(by_cost.output.find("winner: candidate 1 (cluster.pools.0.hardware=h100-sxm)\n") != std::string::npos);
  CHECK(by_energy.output.find("winner: candidate 0 (cluster.pools.0.hardware=a100-80g-sxm); ranked by energy per "
                              "output token (--objective energy): ") != std::string::npos);
}

TEST_CASE("search: the total-cost objective adds each candidate's electricity to its GPUs", "[search][energy]") {
  const TwoBoards b;
  // At USD 100 per kWh (large, so that power decides): the H100 costs 1.00 + 0.070 kW x 100 =
  // USD 8.00 an hour, the A100 1.80 + 0.050 x 100 = USD 6.80.
  const auto r = b.search("total", "--set cluster.energy.price_per_kwh=100 --objective total-cost");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto j = b.result("total");
  CHECK(j["objective"] == "total-cost");
  CHECK(j["winner"] == 0);
  CHECK(j["rows"][0]["energy_cost_per_hour"].get<double>() == Approx(5.0).epsilon(1e-9));
  CHECK(j["rows"][1]["energy_cost_per_hour"].get<double>() == Approx(7.0).epsilon(1e-9));
  CHECK(j["rows"][0]["cost_per_hour"].get<double>() == Approx(6.8).epsilon(1e-9));
  CHECK(j["rows"][1]["cost_per_hour"].get<double>() == Approx(8.0).epsilon(1e-9));
  CHECK(r.output.find("(--objective total-cost), $5.00/hour of it electricity") != std::string::npos);
  const std::string csv = read_file(b.dir.path / "total" / "search.csv");
  CHECK(csv.find(",served_rate,energy_kwh,energy_per_output_token_j,energy_cost_per_hour,reason,") != std::string::npos);
}

TEST_CASE("search: an energy objective without cluster.energy is a usage error naming the key", "[search][energy]") {
  const TwoBoards b;
  const auto energy = b.search("none", "--objective energy");
  CHECK(energy.exit_code == 2);
  CHECK(energy.output.find("scenarios/quickstart.yaml: cluster.energy: --objective energy ranks by the energy per "
                           "output token, which only a scenario with cluster.energy meters") != std::string::npos);
  const auto total = b.search("unpriced", "--set 'cluster.energy={}' --objective total-cost");
  CHECK(total.exit_code == 2);
  CHECK(total.output.find("cluster.energy.price_per_kwh: --objective total-cost ranks by") != std::string::npos);
  const auto bad = b.search("bad", "--objective watts");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("objective: must be cost, energy or total-cost, got 'watts'") != std::string::npos);
  // Refused before any run: no folder written.
  CHECK(!std::filesystem::exists(b.dir.path / "none"));
}

// The runners-up table (without -q) shows what the energy objectives rank by. Both boards
// draw their idle power all run: mean W 50.0 (A100 SXM) and 70.0 (H100); J per output token
// and kWh are those powers over the run, which search.json's rows carry.
TEST_CASE("search: the energy objective's table shows J per output token and mean power and kWh", "[search][energy]") {
  const TwoBoards b;
  const auto r = run_cli("search scenarios/quickstart.yaml --space " + b.space.string() +
                         " --set stop.requests=300 --set 'cluster.pools.0.cost_model={constant: {step: 10ms}}'"
                         " --price h100-sxm=1.00 --set 'cluster.energy={}' --objective energy --out " +
                         (b.dir.path / "table").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto j = b.result("table");
  const auto line_of = [&](const std::string& start) {
    const auto at = r.output.find(start);
    REQUIRE(at != std::string::npos);
    return r.output.substr(at, r.output.find('\n', at) - at);
  };
  const std::string head = line_of("rank  candidate");
  CHECK(head.find("  GPUs  J/out tok  mean W     kWh  ") != std::string::npos);
  // Rank 1 is the A100 (candidate 0), rank 2 the H100 (candidate 1): after rank, candidate,
  // $/hour, $/1M out tok and GPUs come J/out tok (4 decimals), mean W (1) and kWh (4).
  const auto cells = [&](const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words{std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
    REQUIRE(words.size() >= 8);
    return std::vector<std::string>(words.begin() + 5, words.begin() + 8);
  };
  const auto expected = [&](int candidate, const char* watts) {
    const auto& row = j["rows"][candidate];
    char jt[32], kwh[32];
    std::snprintf(jt, sizeof jt, "%.4f", row["energy_per_output_token_j"].get<double>());
    std::snprintf(kwh, sizeof kwh, "%.4f", row["energy_kwh"].get<double>());
    return std::vector<std::string>{jt, watts, kwh};
  };
  CHECK(cells(line_of("   1          0")) == expected(0, "50.0"));
  CHECK(cells(line_of("   2          1")) == expected(1, "70.0"));
  // The two boards' J per output token, 50 D / N against 70 D / N, as printed.
  CHECK(j["rows"][1]["energy_per_output_token_j"].get<double>() / j["rows"][0]["energy_per_output_token_j"].get<double>() ==
        Approx(1.4).epsilon(1e-9));

  // total-cost shows the electricity per hour (USD 5.00 and 7.00 at USD 100 per kWh, as above)
  // and the mean power; the cost objective's table has no energy column.
  const auto total = run_cli("search scenarios/quickstart.yaml --space " + b.space.string() +
                             " --set stop.requests=300 --set 'cluster.pools.0.cost_model={constant: {step: 10ms}}'"
                             " --price h100-sxm=1.00 --set cluster.energy.price_per_kwh=100 --objective total-cost"
                             " --out " + (b.dir.path / "total-table").string());
  INFO(total.output);
  REQUIRE(total.exit_code == 0);
  CHECK(total.output.find("  GPUs  $/hour elec  mean W  ") != std::string::npos);
  CHECK(total.output.find("  1         5.00    50.0  ") != std::string::npos);
  CHECK(total.output.find("  1         7.00    70.0  ") != std::string::npos);
  const auto cost = run_cli("search scenarios/quickstart.yaml --space " + b.space.string() +
                            " --set stop.requests=300 --set 'cluster.pools.0.cost_model={constant: {step: 10ms}}'"
                            " --price h100-sxm=1.00 --set 'cluster.energy={}' --out " + (b.dir.path / "cost-table").string());
  REQUIRE(cost.exit_code == 0);
  CHECK(cost.output.find("  GPUs  cluster.pools.0.hardware  ") != std::string::npos);
  CHECK(cost.output.find("J/out tok") == std::string::npos);
}

}  // namespace search_objective_test
