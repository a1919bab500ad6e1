// `servesim run` and `servesim validate` refuse the same scenarios the same way (the shared
// check of sim/scenario/servability.h: exit 2 with file:line: key and the fix), and a run
// that serves nothing exits 1 with what happened instead of an empty table.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"
#include "scenario/scenario_fixture.h"

namespace servability_cli_test {

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::run_cli;
using servesim::testing::ScenarioDir;
using servesim::testing::TempDir;

namespace {

TEST_CASE("servability cli: run and validate refuse a KV cache smaller than one request alike",
          "[cli][servability]") {
  ScenarioDir dir;
  const std::string path =
      dir.write("study.yaml", edit_line(kMinimalScenario, 11, "      engine: {policy: continuous, kv_cache_tokens: 16}"));
  TempDir out("servability-kv");
  const auto run = run_cli("run " + path + " --quiet --out " + out.path.string());
  const auto validate = run_cli("validate " + path);
  for (const auto* r : {&run, &validate}) {
    CHECK(r->exit_code == 2);
    CHECK_THAT(r->output, Catch::Contains(path + ":11:"));
    CHECK_THAT(r->output, Catch::Contains("cluster.pools.0.engine.kv_cache_tokens: class 'chat' cannot be served"));
    CHECK_THAT(r->output, Catch::Contains("engine.kv_cache_tokens at least 112"));
  }
  CHECK_FALSE(std::filesystem::exists(out.path / "summary.json"));  // refused before running
}

TEST_CASE("servability cli: run and validate refuse a header-only trace alike", "[cli][servability]") {
  ScenarioDir dir;
  dir.write("header.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n");
  const std::string path = dir.write(
      "study.yaml", edit_line(edit_line(edit_line(kMinimalScenario, 5, ""), 4, ""), 3,
                              "    trace: {format: azure, path: header.csv}"));
  TempDir out("servability-trace");
  for (const std::string& command : {"run " + path + " --quiet --out " + out.path.string(), "validate " + path}) {
    const auto r = run_cli(command);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(path + ":3:"));
    CHECK_THAT(r.output, Catch::Contains("workload.0.trace.path: trace "));
    CHECK_THAT(r.output, Catch::Contains("has no requests (a header and no rows)"));
  }
}

TEST_CASE("servability cli: each case of the issue is refused with exit 2 at its line and key", "[cli][servability]") {
  ScenarioDir dir;
  dir.write("empty.csv", "");
  dir.write("small-gpu.yaml", edit_line(servesim::testing::kTinyGpuYaml, 3, "memory_gib: 12"));
  const std::string trace_class = "    trace: {format: azure, path: empty.csv}";
  struct Case {
    std::string yaml;
    std::string where;  // "file:line:" and the key, as printed
  };
  const std::string study = dir.path("study.yaml");
  const std::vector<Case> cases = {
      {edit_line(kMinimalScenario, 4, "    input: {fixed: 9000}"), study + ":4:12: workload.0.input: class 'chat'"},
      {edit_line(kMinimalScenario, 4, "    input: 1e12"), study + ":4:12: workload.0.input: class 'chat'"},
      {edit_line(kMinimalScenario, 11, "      engine: {policy: continuous, kv_cache_tokens: 16}"),
       study + ":11:53: cluster.pools.0.engine.kv_cache_tokens: class 'chat'"},
      {edit_line(edit_line(edit_line(kMinimalScenario, 5, ""), 4, ""), 3, trace_class),
       dir.path("empty.csv") + ":1: the file is empty"},
      {edit_line(kMinimalScenario, 9, "      hardware: small-gpu.yaml"),
       study + ":10:11: cluster.pools.0.tp: the model does not fit"},
  };
  TempDir out("servability-cases");
  for (const Case& c : cases) {
    dir.write("study.yaml", c.yaml);
    for (const std::string& command : {"validate " + study, "run " + study + " --quiet --out " + out.path.string()}) {
      const auto r = run_cli(command);
      INFO(command << "\n" << r.output);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.output, Catch::Contains(c.where));
    }
  }
}

TEST_CASE("servability cli: validate warns of the share beyond the context and exits 0", "[cli][servability]") {
  ScenarioDir dir;
  // Uniform [1000, 9000] prompts + 192 outputs: (9000 - 8000.5) / 8000 = 12.5% beyond 8192.
  const std::string path = dir.write("study.yaml", edit_line(edit_line(kMinimalScenario, 5, "    output: {fixed: 192}"),
                                                             4, "    input: {uniform: [1000, 9000]}"));
  const auto r = run_cli("validate " + path);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("servesim validate: warning: " + path + ":2:"));
  CHECK_THAT(r.output, Catch::Contains("12.5% of the requests of class 'chat' will be rejected"));
  CHECK_THAT(r.output, Catch::Contains("ok: the scenario is valid"));
}

TEST_CASE("servability cli: a run that completes nothing exits 1 and says why", "[cli][servability]") {
  ScenarioDir dir;
  // 1000 requests a second for 10 ms, each decoding 5000 tokens: none can finish by then.
  const std::string path = dir.write(
      "study.yaml", edit_line(edit_line(edit_line(kMinimalScenario, 13, "stop: {time: 10ms}"), 5,
                                        "    output: {fixed: 5000}"),
                              3, "    arrival: {process: constant, rate: 1000}"));
  TempDir out("servability-none");
  const auto r = run_cli("run " + path + " --quiet --out " + out.path.string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("servesim run: no request completed: arrived 10, rejected 0, unfinished 10"));
  CHECK_THAT(r.output, Catch::Contains("stop.time ended the run before any request finished"));
}

}  // namespace

}  // namespace servability_cli_test
