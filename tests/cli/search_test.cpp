// `servesim search` through the real binary, on the M/D/1 set-up of
// tests/cli/sweep_test_util.h: each replica serves one request at a time in S = 10 ms (100
// req/s), so at an arrival rate lambda a pool of N replicas is stable exactly when
// N > lambda S, and the cheapest feasible count under a loose SLO is ceil(lambda S).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

namespace search_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

// A hardware profile of our own, so the prices the tests assert are the test's.
std::string hardware_yaml(const std::string& name, double memory_gib, double price) {
  return "name: " + name + "\nmemory_gib: " + std::to_string(memory_gib) +
         "\nmemory_bandwidth_tb_s: 3.35\npeak_tflops_bf16: 989.5\ninterconnect_bandwidth_gb_s: 450\n"
         "price_per_gpu_hour: " + std::to_string(price) + "\n";
}

const json& row(const json& j, int candidate) { return j["rows"][candidate]; }

}  // namespace

TEST_CASE("search: over 1 to 4 replicas at 250 req/s the cheapest feasible count is ceil(lambda S) = 3", "[search]") {
  TempDir dir("search-md1");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 20000));
  const auto hw = dir.write("gpu.yaml", hardware_yaml("gpu", 80, 2.0));
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, 2, 3, 4]\n");
  const std::string common = "search " + scenario.string() + " --space " + space.string() + " --rate 250" +
                             " --slo ttft_p99=1s --set cluster.pools.0.hardware=" + hw.string() + " --jobs 2";

  SECTION("pruned by the replica order") {
    const auto r = run_cli(common + " --json --out " + (dir.path / "pruned").string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.output);
    REQUIRE(j["winner"] == 2);
    CHECK(row(j, 2)["values"]["cluster.pools.0.replicas"] == 3);
    CHECK(row(j, 2)["rank"] == 1);
    // 3 replicas x 1 GPU x $2 per GPU-hour.
    CHECK(row(j, 2)["cost_per_hour"].get<double>() == Approx(6.0));
    CHECK(row(j, 2)["gpus"] == 3);
    // $6 an hour over the output tokens of an hour: every request has one output token,
    // so about 250 tokens/s; the exact figure uses the run's own throughput.
    const double tokens_per_s = row(j, 2)["summary"]["output_throughput"].get<double>();
    CHECK(tokens_per_s == Approx(250).epsilon(0.03));
    CHECK(row(j, 2)["cost_per_1m_output_tokens"].get<double>() == Approx(6.0 / (tokens_per_s * 3600) * 1e6));
    // 2 replicas run first (the median of 1..4) and saturate (rho = 1.25); then 3 runs.
    CHECK(j["runs"] == 2);
    CHECK(j["pruned"] == 2);
    CHECK(row(j, 1)["status"] == "infeasible");
    CHECK(row(j, 1)["ran"] == true);
    CHECK(row(j, 1)["reason"].get<std::string>().find("saturated") != std::string::npos);
    CHECK(row(j, 0)["status"] == "infeasible");
    CHECK(row(j, 0)["ran"] == false);
    CHECK(row(j, 0)["reason"].get<std::string>().find("not run: no more replicas than candidate 1") == 0);
    CHECK(row(j, 3)["status"] == "dominated");
    CHECK(row(j, 3)["ran"] == false);
    CHECK(row(j, 3)["summary"].is_null());
    // The files hold the same table.
    const json file = json::parse(read_file(dir.path / "pruned" / "search.json"));
    CHECK(file == j);
    const std::string csv = read_file(dir.path / "pruned" / "search.csv");
    CHECK(csv.find("candidate,cluster.pools.0.replicas,status,rank,ran,gpus,cost_per_hour,") == 0);
    CHECK(csv.find("\n2,3,feasible,1,1,3,6.0,") != std::string::npos);
  }

  SECTION("every candidate run") {
    const auto r = run_cli(common + " --no-prune --out " + (dir.path / "all").string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("4 of 4 candidates ran") != std::string::npos);
    CHECK(r.output.find("winner: candidate 2 (cluster.pools.0.replicas=3): $6.00/hour for 3 GPUs") != std::string::npos);
    const json j = json::parse(read_file(dir.path / "all" / "search.json"));
    CHECK(j["ranking"] == json::array({2, 3}));
    CHECK(row(j, 3)["cost_per_hour"].get<double>() == Approx(8.0));
    // 1 replica is rho = 2.5, 2 replicas rho = 1.25: both saturated, both stopped early.
    for (int c : {0, 1}) {
      CHECK(row(j, c)["status"] == "infeasible");
      CHECK(row(j, c)["reason"].get<std::string>().find("run stopped early") != std::string::npos);
    }
  }
}

TEST_CASE("search: the results are the same for any number of jobs", "[search]") {
  TempDir dir("search-jobs");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 5000));
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, 2, 3]\ncluster.pools.0.engine.max_num_seqs: [1, 2]\n");
  const std::string common = "search " + scenario.string() + " --space " + space.string() + " --rate 150 --slo ttft_p99=1s -q";
  REQUIRE(run_cli(common + " --jobs 1 --out " + (dir.path / "j1").string()).exit_code == 0);
  REQUIRE(run_cli(common + " --jobs 2 --out " + (dir.path / "j2").string()).exit_code == 0);
  CHECK(read_file(dir.path / "j1" / "search.json") == read_file(dir.path / "j2" / "search.json"));
  CHECK(read_file(dir.path / "j1" / "search.csv") == read_file(dir.path / "j2" / "search.csv"));
}

TEST_CASE("search: between a fast dear GPU and a slow cheap one the cheaper feasible cluster wins", "[search]") {
  // fast: 5 ms per request (200 req/s per replica) at $3; slow: 10 ms (100 req/s) at $1.
  // At 250 req/s fast needs 2 replicas ($6/h) and slow needs 3 ($3/h): slow wins. At $2.50
  // for slow, 3 x 2.50 = $7.50 > $6: fast wins.
  TempDir dir("search-hw");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 20000));
  const auto fast = dir.write("fast.yaml", hardware_yaml("fast", 80, 3.0));
  const auto slow = dir.write("slow.yaml", hardware_yaml("slow", 80, 1.0));
  const std::string engine = "engine: {policy: continuous, max_num_seqs: 1, max_batched_tokens: 100000, kv_cache_tokens: 10000000}";
  const auto space = dir.write(
      "space.yaml", "cluster.pools.0:\n"
                    "  - {name: main, model: llama-3-8b, hardware: " + fast.string() + ", " + engine +
                        ", cost_model: {constant: {step: 5ms}}}\n"
                    "  - {name: main, model: llama-3-8b, hardware: " + slow.string() + ", " + engine +
                        ", cost_model: {constant: {step: 10ms}}}\n"
                    "cluster.pools.0.replicas: [1, 2, 3, 4]\n");
  const std::string common = "search " + scenario.string() + " --space " + space.string() + " --rate 250 --slo ttft_p99=1s --json";

  const auto r = run_cli(common + " --out " + (dir.path / "a").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.output);
  // Candidates: fast x 1..4 are 0..3, slow x 1..4 are 4..7.
  CHECK(j["winner"] == 6);
  CHECK(row(j, 6)["cost_per_hour"].get<double>() == Approx(3.0));
  CHECK(j["ranking"][1] == 1);  // the runner-up: 2 fast replicas
  CHECK(row(j, 1)["cost_per_hour"].get<double>() == Approx(6.0));
  CHECK(row(j, 0)["status"] == "infeasible");
  CHECK(row(j, 5)["status"] == "infeasible");

  const auto dear = run_cli(common + " --price slow=2.5 --out " + (dir.path / "b").string());
  INFO(dear.output);
  REQUIRE(dear.exit_code == 0);
  j = json::parse(dear.output);
  CHECK(j["winner"] == 1);
  CHECK(row(j, 6)["cost_per_hour"].get<double>() == Approx(7.5));
  CHECK(j["ranking"][1] == 6);
}

TEST_CASE("search: infeasible candidates carry their reasons and none feasible exits 1", "[search]") {
  TempDir dir("search-none");
  // No kv_cache_tokens: the KV cache comes from memory, so a 4 GiB GPU cannot hold the
  // 16 GB of Llama-3-8B bf16 weights.
  const std::string scenario_text =
      "name: small\nseed: 3\nstop: {requests: 2000}\n"
      "workload:\n  - class: default\n    arrival: {process: poisson, rate: 50}\n"
      "    input: {fixed: 100}\n    output: {fixed: 1}\n"
      "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n"
      "      engine: {policy: continuous, max_num_seqs: 1, max_batched_tokens: 4096}\n"
      "      cost_model: {constant: {step: 10ms}}\n";
  const auto scenario = dir.write("small.yaml", scenario_text);
  const auto tiny = dir.write("tiny.yaml", hardware_yaml("tiny", 4, 0.5));
  const auto space = dir.write("space.yaml", "cluster.pools.0.hardware: [" + tiny.string() + ", h100-sxm]\n"
                                             "cluster.pools.0.replicas: [1, 2]\n");
  // Every TTFT is at least one 10 ms step, so 5 ms is missed at any replica count.
  const auto r = run_cli("search " + scenario.string() + " --space " + space.string() +
                         " --slo ttft_p99=5ms --out " + (dir.path / "o").string());
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("no candidate is feasible") != std::string::npos);
  const json j = json::parse(read_file(dir.path / "o" / "search.json"));
  CHECK(j["winner"].is_null());
  for (int c : {0, 1}) {
    CHECK(row(j, c)["status"] == "infeasible");
    CHECK(row(j, c)["ran"] == true);  // a build failure says nothing about other counts
    CHECK(row(j, c)["reason"].get<std::string>().find("cannot be built: cluster.pools.0: the model does not fit") == 0);
  }
  for (int c : {2, 3}) {
    CHECK(row(j, c)["status"] == "infeasible");
    CHECK(row(j, c)["reason"].get<std::string>().find("SLO missed: p99_ttft_ms ") != std::string::npos);
    CHECK(row(j, c)["reason"].get<std::string>().find(" > 5") != std::string::npos);
  }
}

TEST_CASE("search: a bad space or bad options exit 2 naming the file and line", "[search]") {
  TempDir dir("search-bad");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 1000));
  const std::string cmd = "search " + scenario.string() + " --slo ttft_p99=1s --space ";
  const auto not_list = dir.write("a.yaml", "cluster.pools.0.replicas: 3\n");
  auto r = run_cli(cmd + not_list.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("a.yaml:1:") != std::string::npos);
  CHECK(r.output.find("expected a list of candidate values") != std::string::npos);
  // A value the scenario loader rejects is reported where the space file has it.
  const auto bad_value = dir.write("b.yaml", "cluster.pools.0.engine.max_num_seqs: [1, 2]\ncluster.pools.0.replicas: [1, 0]\n");
  r = run_cli(cmd + bad_value.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("b.yaml:2:31: cluster.pools.0.replicas:") != std::string::npos);
  const auto ok = dir.write("c.yaml", "cluster.pools.0.replicas: [1]\n");
  CHECK(run_cli(cmd + dir.write("d.yaml", "cluster.pools.0.replicas: []\n").string()).exit_code == 2);
  CHECK(run_cli(cmd + (dir.path / "missing.yaml").string()).exit_code == 2);
  CHECK(run_cli("search " + scenario.string() + " --slo ttft_p99=1s").exit_code == 2);  // no --space
  CHECK(run_cli(cmd + ok.string() + " --price h100-sxm=cheap").exit_code == 2);
  CHECK(run_cli(cmd + ok.string() + " --rate -1").exit_code == 2);
  CHECK(run_cli(cmd + ok.string() + " --class nope").exit_code == 2);
}

}  // namespace search_test
