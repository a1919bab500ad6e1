// `servesim capacity` against queueing theory, through the real binary. The set-up is the
// M/D/1 queue of tests/cluster/queueing_test.cpp: service S = 10 ms, so rho = rate / 100.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

namespace capacity_test {

using namespace servesim::testing;
using nlohmann::json;

TEST_CASE("capacity: a mean TTFT bound finds the rate where the M/D/1 sojourn time meets it", "[sweep]") {
  // S + rho S / (2 (1 - rho)) = 30 ms with S = 10 ms gives rho / (1 - rho) = 4, rho = 0.8:
  // 80 req/s.
  const double rho = 0.8;
  REQUIRE(md1_mean_sojourn_ms(10.0, rho) == Approx(30.0));
  TempDir dir("capacity-mean");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 100000));
  const auto r = run_cli("capacity " + scenario.string() + " --slo ttft_mean=30ms --tolerance 0.5% --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  REQUIRE(j["feasible"] == true);
  const double found = j["capacity"].get<double>();
  CHECK(std::abs(found - 80.0) / 80.0 < 0.02);
  // The bracket it stopped on is no wider than the tolerance, and the figures are those of
  // the run at the answer: within the bound.
  CHECK(j["lowest_infeasible"].get<double>() > found);
  CHECK(j["lowest_infeasible"].get<double>() - found <= 0.005 * found + 1e-9);
  CHECK(j["figures"]["mean_ttft_ms"].get<double>() <= 30.0);
  CHECK(j["keys"]["workload.0.arrival.rate"].get<double>() == found);
  CHECK(j["unit"] == "req/s");
}

TEST_CASE("capacity: with a loose SLO the answer is the saturation rate 1/S - found by saturation", "[sweep]") {
  // No latency bound binds (1 hour), so only the queue's growth decides: it is stable for
  // rate < 1/S = 100 req/s and grows without bound above.
  TempDir dir("capacity-sat");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 100000));
  const auto r = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto at = r.output.find("\ncapacity: ");
  REQUIRE(at != std::string::npos);
  const double found = std::stod(r.output.substr(at + 11));
  CHECK(std::abs(found - 100.0) / 100.0 < 0.02);
  // Far above saturation (200 req/s is rho = 2) a run stops early instead of simulating
  // 100000 requests.
  CHECK(r.output.find("run stopped early") != std::string::npos);
  CHECK(r.output.find("saturated") != std::string::npos);
}

TEST_CASE("capacity: an SLO below the bare service time is infeasible at any rate - exit 1", "[sweep]") {
  TempDir dir("capacity-none");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 2000));
  // Every TTFT is at least one 10 ms step.
  const auto r = run_cli("capacity " + scenario.string() + " --slo ttft_p99=5ms");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("no feasible value") != std::string::npos);
  CHECK(r.output.find("p99_ttft_ms 10 > 5") != std::string::npos);
}

TEST_CASE("capacity: --max-rate caps the search and bad options exit 2", "[sweep]") {
  TempDir dir("capacity-cap");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 2000));
  const auto r = run_cli("capacity " + scenario.string() + " --slo ttft_p99=1s --max-rate 60 --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  CHECK(j["capacity"] == 60.0);
  CHECK(j["capped"] == true);
  CHECK(run_cli("capacity " + scenario.string() + " --slo ttft_p99=2xs").exit_code == 2);
  CHECK(run_cli("capacity " + scenario.string() + " --slo latency_p99=2s").exit_code == 2);
  CHECK(run_cli("capacity " + scenario.string() + " --slo ttft_p99=1s --tolerance 1").exit_code == 2);
  CHECK(run_cli("capacity " + scenario.string() + " --slo ttft_p99=1s --class nope").exit_code == 2);
  CHECK(run_cli("capacity " + scenario.string()).exit_code == 2);  // no --slo and no slo: in the class
}

TEST_CASE("capacity: without --class every class's rate scales together and each meets its own slo", "[sweep]") {
  // Two Poisson classes at 30 and 10 req/s into the same single server make one Poisson
  // stream of 40 req/s; the loose SLOs leave saturation at a total of 100 req/s, i.e. a
  // multiplier of 2.5 on the scenario's rates.
  TempDir dir("capacity-scale");
  std::string text = md1_scenario(30, 100000);
  const std::string second = "  - class: other\n"
                             "    arrival: {process: poisson, rate: 10}\n"
                             "    input: {fixed: 100}\n"
                             "    output: {fixed: 1}\n"
                             "    slo: {ttft: 1h}\n";
  text.insert(text.find("cluster:"), second);
  text.insert(text.find("    input: {fixed: 100}"), "    slo: {ttft: 1h}\n");
  const auto scenario = dir.write("two.yaml", text);
  const auto r = run_cli("capacity " + scenario.string() + " --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  const double scale = j["capacity"].get<double>();
  CHECK(std::abs(scale - 2.5) / 2.5 < 0.02);
  CHECK(j["keys"]["workload.0.arrival.rate"].get<double>() == Approx(30 * scale));
  CHECK(j["keys"]["workload.1.arrival.rate"].get<double>() == Approx(10 * scale));
  CHECK(j["slo"].size() == 2);  // one p99 TTFT bound per class, from the scenario
}

}  // namespace capacity_test
