// `servesim search` prices an autoscaled pool by the GPU time it paid for over the run, as a
// sweep does (docs/sweeps.md), not at its ceiling: a candidate whose autoscale.max_replicas
// it never reached costs what it ran.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace search_autoscale_test {

using namespace servesim::testing;
using nlohmann::json;

TEST_CASE("search: an autoscaled pool costs the replica time it paid for", "[search][autoscale]") {
  TempDir dir("search-autoscale");
  // 2 req/s of 100 output tokens at a constant 10 ms step: a request is inside for about
  // 1 s, so about 2 are in flight, far below the in_flight target of 45 per replica, and
  // the pool never leaves its one replica (min_replicas 1). It pays for that replica from
  // t = 0 to the end: 1 GPU at h100-sxm's 3.00 USD per GPU-hour
  // (configs/hardware/h100-sxm.yaml), whether its ceiling is 1 or 3 replicas.
  const auto scenario = dir.write(
      "auto.yaml",
      "name: auto\nseed: 3\nstop: {requests: 400}\n"
      "workload:\n  - class: default\n    arrival: {process: poisson, rate: 2}\n"
      "    input: {fixed: 100}\n    output: {fixed: 100}\n"
      "cluster:\n  pools:\n    - name: main\n      model: llama-3-8b\n      hardware: h100-sxm\n"
      "      engine: {policy: continuous, max_num_seqs: 64, max_batched_tokens: 4096}\n"
      "      cost_model: {constant: {step: 10ms}}\n"
      "      autoscale: {policy: in_flight, target: 45, min_replicas: 1, max_replicas: 1}\n");
  const auto space = dir.write("space.yaml", "cluster.pools.0.autoscale.max_replicas: [1, 3]\n");
  const auto r = run_cli("search " + scenario.string() + " --space " + space.string() + " --slo ttft_p99=1s --out " +
                         (dir.path / "o").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(read_file(dir.path / "o" / "search.json"));
  REQUIRE(j["rows"].size() == 2);
  for (const json& row : j["rows"]) {
    INFO(row.dump());
    CHECK(row["status"] == "feasible");
    CHECK(row["cost_per_hour"].get<double>() == Approx(3.0).epsilon(1e-9));
  }
  // Equal cost: the fewer GPUs it may run ranks first.
  CHECK(j["winner"] == 0);
  CHECK(j["rows"][1]["gpus"] == 3);  // the most it may run
}

}  // namespace search_autoscale_test
