// What `servesim sweep --pareto` and `--slo` accept (docs/sweeps.md): only fields the table
// has, a typo refused with the nearest one, a cost objective only where every GPU has a
// price; and the table's cost and SLO columns, on the M/D/1 set-up of sweep_test_util.h.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

namespace sweep_objectives_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

// A hardware profile of our own, so the prices the tests assert are the test's; price
// < 0 leaves price_per_gpu_hour out.
std::string hardware_yaml(double price) {
  return std::string("name: gpu\nmemory_gib: 80\nmemory_bandwidth_tb_s: 3.35\npeak_tflops_bf16: 989.5\n"
                     "interconnect_bandwidth_gb_s: 450\n") +
         (price < 0 ? "" : "price_per_gpu_hour: " + std::to_string(price) + "\n");
}

}  // namespace

TEST_CASE("sweep: a --pareto field the table lacks exits 2 with the nearest field", "[sweep][pareto]") {
  TempDir dir("sweep-objective-typo");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 100));
  const std::string common = "sweep " + scenario.string() + " --axis workload.0.arrival.rate=10,20 -q --out " +
                             (dir.path / "out").string() + " --pareto ";
  const auto typo = run_cli(common + "max:output_throughput,min:p99_tpot_msx");
  INFO(typo.output);
  CHECK(typo.exit_code == 2);
  CHECK(typo.output.find("min:p99_tpot_msx: unknown field 'p99_tpot_msx'; did you mean 'p99_tpot_ms'?") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "out" / "sweep.json"));

  // Nothing near "cost": the list, which names the cost fields.
  const auto cost = run_cli(common + "min:cost");
  INFO(cost.output);
  CHECK(cost.exit_code == 2);
  CHECK(cost.output.find("unknown field 'cost'; valid fields: ") != std::string::npos);
  CHECK(cost.output.find("cost_per_hour") != std::string::npos);
  CHECK(cost.output.find("paid_per_1m_output_tokens") != std::string::npos);
}

TEST_CASE("sweep: a cost objective without prices exits 2 naming the key that sets them", "[sweep][pareto]") {
  TempDir dir("sweep-objective-unpriced");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 100));
  const auto hw = dir.write("gpu.yaml", hardware_yaml(-1));
  const std::string common = "sweep " + scenario.string() + " --axis workload.0.arrival.rate=10,20 -q --set " +
                             "cluster.pools.0.hardware=" + hw.string() + " --out " + (dir.path / "out").string();
  const auto r = run_cli(common + " --pareto min:cost_per_hour,max:output_throughput");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("point 0's pool 'main' (cluster.pools.0.hardware) runs on 'gpu', which has no price: set "
                      "price_per_gpu_hour") != std::string::npos);

  // Without a cost objective the sweep runs, and its cost cells are empty, never 0.
  const auto plain = run_cli(common);
  INFO(plain.output);
  REQUIRE(plain.exit_code == 0);
  const json t = json::parse(read_file(dir.path / "out" / "sweep.json"));
  for (const auto& row : t["rows"]) {
    CHECK(row["summary"]["cost_per_hour"].is_null());
    CHECK(row["summary"]["paid_per_1m_output_tokens"].is_null());
  }
}

TEST_CASE("sweep: the table has TPOT p99 - the cluster's cost and SLO attainment - and --pareto ranks on them",
          "[sweep][pareto]") {
  TempDir dir("sweep-objective-cost");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 2000));
  const auto hw = dir.write("gpu.yaml", hardware_yaml(2.0));
  // 1 or 2 replicas at 50 req/s (rho 0.5 or 0.25): two replicas cost twice as much per hour
  // and serve the same tokens, with a shorter TTFT. Minimising cost and TTFT, both are on
  // the front; with cost alone, only one replica.
  const std::string common = "sweep " + scenario.string() + " --axis cluster.pools.0.replicas=1,2 --set " +
                             "cluster.pools.0.hardware=" + hw.string() + " --jobs 2";
  const auto both = run_cli(common + " --pareto min:cost_per_hour,min:p99_ttft_ms --out " + (dir.path / "both").string());
  INFO(both.output);
  REQUIRE(both.exit_code == 0);
  // The console shows the objective the fixed columns lack.
  CHECK(both.output.find("cost_per_hour") != std::string::npos);
  const json t = json::parse(read_file(dir.path / "both" / "sweep.json"));
  REQUIRE(t["rows"].size() == 2);
  for (int replicas = 1; replicas <= 2; ++replicas) {
    const json& s = t["rows"][replicas - 1]["summary"];
    // replicas x 1 GPU x $2 per GPU-hour, spread over the output tokens of an hour.
    CHECK(s["cost_per_hour"].get<double>() == Approx(2.0 * replicas));
    const double tokens_per_s = s["output_throughput"].get<double>();
    CHECK(tokens_per_s == Approx(50).epsilon(0.05));
    CHECK(s["paid_per_1m_output_tokens"].get<double>() == Approx(2.0 * replicas / (tokens_per_s * 3600) * 1e6));
    CHECK(s.contains("p99_tpot_ms"));
    // No SLO: every completed request counts as met.
    CHECK(s["slo_attainment"].get<double>() == 1.0);
    CHECK(t["rows"][replicas - 1]["pareto"] == true);
  }
  const std::string csv = read_file(dir.path / "both" / "sweep.csv");
  CHECK(csv.find(",slo_attainment,goodput,") != std::string::npos);
  CHECK(csv.find(",cost_per_hour,paid_per_1m_output_tokens") != std::string::npos);

  const auto cheap = run_cli(common + " -q --pareto min:cost_per_hour --out " + (dir.path / "cheap").string());
  REQUIRE(cheap.exit_code == 0);
  const json c = json::parse(read_file(dir.path / "cheap" / "sweep.json"));
  CHECK(c["rows"][0]["pareto"] == true);
  CHECK(c["rows"][1]["pareto"] == false);
}

TEST_CASE("capacity: an --slo objective the summary lacks exits 2 with the nearest one", "[capacity][slo]") {
  TempDir dir("slo-objective-typo");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 100));
  const auto r = run_cli("capacity " + scenario.string() + " --slo ttft_p99x=2s");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("did you mean 'ttft_p99'?") != std::string::npos);
}

}  // namespace sweep_objectives_test
