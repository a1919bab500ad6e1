// `servesim search` over a space some of whose combinations the loader refuses (more GPUs
// than `cluster.gpus`): those candidates are infeasible with the loader's reason, and the
// search goes on; a value that is wrong in itself is still the space file's error.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "cli/cli_test_util.h"

namespace search_gpu_budget_test {

using servesim::testing::run_cli;
using servesim::testing::TempDir;

namespace {

// One pool on a 2-GPU budget, light load: one replica meets the SLO.
const char* kScenario =
    "name: budget\nseed: 1\nstop: {requests: 200}\n"
    "workload:\n  - class: chat\n    arrival: {process: poisson, rate: 5}\n"
    "    input: {fixed: 500}\n    output: {fixed: 50}\n    slo: {ttft: 2s}\n"
    "cluster:\n  gpus: 2\n  pools:\n"
    "    - {name: p, replicas: 1, model: llama-3-8b, hardware: h100-sxm, engine: {preset: vllm}}\n";

}  // namespace

TEST_CASE("search: a candidate over the GPU budget is infeasible with the loader's reason and the rest run",
          "[cli][search]") {
  TempDir dir("search-budget");
  const auto scenario = dir.write("s.yaml", kScenario);
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, 2, 3]\n");
  const auto out = dir.path / "out";
  const auto r = run_cli("search " + scenario.string() + " --space " + space.string() + " --no-prune -j 1 -o " +
                         out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("winner: candidate 0") != std::string::npos);
  std::ifstream in(out / "search.json");
  const auto j = nlohmann::json::parse(in);
  REQUIRE(j["rows"].size() == 3);
  // 1 and 2 replicas fit in 2 GPUs and ran; 3 replicas need 3.
  CHECK(j["rows"][0]["ran"] == true);
  CHECK(j["rows"][1]["ran"] == true);
  CHECK(j["rows"][1]["gpus"] == 2);
  const auto& over = j["rows"][2];
  CHECK(over["status"] == "infeasible");
  CHECK(over["ran"] == false);
  CHECK(over["gpus"].is_null());
  CHECK(over["cost_per_hour"].is_null());
  const std::string reason = over["reason"];
  CHECK(reason.find("cannot be built") != std::string::npos);
  CHECK(reason.find("cluster.gpus") != std::string::npos);
  CHECK(reason.find("3 GPUs") != std::string::npos);
  CHECK(reason.find("budget of 2") != std::string::npos);
}

TEST_CASE("search: a space value wrong in itself is still an error at its line in the space file", "[cli][search]") {
  TempDir dir("search-budget-bad");
  const auto scenario = dir.write("s.yaml", kScenario);
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, many]\n");
  const auto r = run_cli("search " + scenario.string() + " --space " + space.string() + " -j 1 -o " +
                         (dir.path / "out").string());
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("space.yaml:1") != std::string::npos);
  CHECK(r.output.find("cluster.pools.0.replicas") != std::string::npos);
}

}  // namespace search_gpu_budget_test
