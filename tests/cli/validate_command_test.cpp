// `servesim validate`: a summary and exit 0 for a valid scenario, the error and exit 2
// otherwise, Program_options usage handling.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

#include "scenario/scenario_fixture.h"
#include "sim/cli/subcommands.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::cli::validate_command_test {
namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result validate(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run_subcommand("validate", args, out, err);
  return {code, out.str(), err.str()};
}

TEST_CASE("validate: a valid scenario prints its summary and exits 0", "[scenario]") {
  ScenarioDir dir;
  const std::string path = dir.write("study.yaml", kMinimalScenario);
  const Result r = validate({path});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("scenario study (" + path + ")"));
  CHECK_THAT(r.out, Catch::Contains("workload: 1 class"));
  CHECK_THAT(r.out, Catch::Contains("chat: poisson 4 req/s; input fixed 100; output fixed 10"));
  CHECK_THAT(r.out, Catch::Contains("cluster: 1 pool, 1 replica, router round-robin"));
  CHECK_THAT(r.out, Catch::Contains("main: 1 x test-gqa on tiny-gpu (tp 1, pp 1"));
  CHECK_THAT(r.out, Catch::Contains("ok: the scenario is valid"));
}

TEST_CASE("validate: an autoscaled pool counts from its floor to its ceiling", "[scenario][autoscale]") {
  // what-if 16: a fixed pool of 4 and one of 1..4.
  const Result r = validate({std::string(SERVESIM_SOURCE_DIR) + "/scenarios/whatif-16-autoscale-day.yaml"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("cluster: 2 pools, 5 to 8 replicas, router least-outstanding"));
  CHECK_THAT(r.out, Catch::Contains("autoscaled: 1..4 (autoscale in_flight) x llama-3-8b"));
}

TEST_CASE("validate: a shared KV store names its topology node", "[scenario][kv_tiers]") {
  // 64 GiB of Llama-3.1-8B KV at 128 KiB a token: 524,288 tokens.
  const std::string k = "cluster.pools.0.engine.kv_offload.";
  const Result r = validate({std::string(SERVESIM_SOURCE_DIR) + "/scenarios/whatif-15-kv-offload.yaml", "--set",
                             k + "cpu_gib=64", "--set", k + "shared=true", "--set", k + "store_node=ib-switch"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("KV tiers: CPU 524288 tokens, disk 0 tokens shared by the pool's replicas, on "
                                    "topology node ib-switch"));
}

TEST_CASE("validate: says whether the engine schedules asynchronously and why not", "[scenario]") {
  const std::string spec = std::string(SERVESIM_SOURCE_DIR) + "/scenarios/speculative_concurrency.yaml";
  // The vllm preset's auto: on without speculation, off with it, as vLLM resolves it.
  const Result plain = validate({spec, "--set", "cluster.pools.0.engine.speculative=off"});
  CHECK(plain.code == 0);
  CHECK_THAT(plain.out, Catch::Contains("(preset vllm), async scheduling\n"));
  const Result speculating = validate({spec});
  CHECK(speculating.code == 0);
  CHECK_THAT(speculating.out, Catch::Contains("(preset vllm)\n"));
  CHECK_THAT(speculating.out, Catch::Contains("; without async scheduling, as vLLM runs this speculation"));
  // A file's own true wins over the preset's rule.
  const Result forced = validate({spec, "--set", "cluster.pools.0.engine.async_scheduling=true"});
  CHECK_THAT(forced.out, Catch::Contains("(preset vllm), async scheduling\n"));
  CHECK_THAT(forced.out, !Catch::Contains("without async scheduling"));
}

TEST_CASE("validate: --set overrides show in the summary", "[scenario]") {
  ScenarioDir dir;
  const std::string path = dir.write("s.yaml", kMinimalScenario);
  const Result r = validate({path, "--set", "cluster.pools.0.replicas=4", "--set",
                             "workload.0.slo={ttft: 2s, itl: 50ms}"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("main: 4 x test-gqa"));
  CHECK_THAT(r.out, Catch::Contains("slo ttft 2s, itl 50ms"));
}

TEST_CASE("validate: an invalid scenario prints file:line:col: key: message and exits 2",
          "[scenario]") {
  ScenarioDir dir;
  const std::string path =
      dir.write("s.yaml", edit_line(kMinimalScenario, 11, "      engine: {polcy: continuous}"));
  const Result r = validate({path});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  // "engine: {" puts `polcy` at column 16.
  CHECK_THAT(r.err, Catch::Contains(path + ":11:16: cluster.pools.0.engine.polcy: unknown key "
                                           "'polcy'; did you mean 'policy'?"));
}

TEST_CASE("validate: usage errors exit 2 and --help exits 0", "[scenario]") {
  const Result none = validate({});
  CHECK(none.code == 2);
  CHECK_THAT(none.err, Catch::Contains("a scenario file is required"));
  const Result unknown = validate({"x.yaml", "--frobnicate"});
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("usage error"));
  const Result help = validate({"--help"});
  CHECK(help.code == 0);
  CHECK_THAT(help.out, Catch::Contains("--set"));
  const Result bad_set = validate({"x.yaml", "--set"});
  CHECK(bad_set.code == 2);
  const Result missing = validate({"/nonexistent/scenario.yaml"});
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("/nonexistent/scenario.yaml: scenario file not found"));
}

TEST_CASE("validate: the servesim binary exits 2 on a bad scenario and 0 on a good one",
          "[scenario]") {
  ScenarioDir dir;
  const std::string good = dir.write("good.yaml", kMinimalScenario);
  const std::string bad = dir.write("bad.yaml", edit_line(kMinimalScenario, 10, "      tp: 5"));
  const std::string sink = " >" + dir.path("out.txt") + " 2>&1";
  const int good_status =
      std::system((std::string(SERVESIM_BINARY) + " validate " + good + sink).c_str());
  const int bad_status =
      std::system((std::string(SERVESIM_BINARY) + " validate " + bad + sink).c_str());
  REQUIRE(WIFEXITED(good_status));
  REQUIRE(WIFEXITED(bad_status));
  CHECK(WEXITSTATUS(good_status) == 0);
  CHECK(WEXITSTATUS(bad_status) == 2);
}

}  // namespace
}  // namespace servesim::cli::validate_command_test
