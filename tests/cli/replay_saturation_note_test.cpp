// `servesim replay` names why its simulated run was saturated with the run's own reason
// (summary.json's saturation_note, the one saturation rule of docs/metrics.md), not a
// fixed phrase.
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace replay_saturation_note_test {

using namespace servesim::testing;

TEST_CASE("replay: a saturated replay prints the saturation rule's own note", "[cli][replay]") {
  const TempDir dir("replay_note");
  const std::string scenario = (dir.path / "deployment.yaml").string();
  // 8 req/s of ~210 output tokens each; vLLM's defaults on one 8B replica keep up.
  std::ofstream(scenario) << "name: deployment\nseed: 3\nstop: {requests: 400}\n"
                          << "workload:\n  - class: chat\n    arrival: {process: poisson, rate: 8}\n"
                             "    input: {uniform: [100, 2000]}\n    output: {uniform: [20, 400]}\n"
                             "cluster:\n  pools:\n    - name: main\n      model: llama-3-8b\n"
                             "      hardware: h100-sxm\n      engine: {preset: vllm}\n";
  const std::string out = (dir.path / "run").string();
  REQUIRE(run_cli("run " + scenario + " -q --bench-format vllm --out " + out).exit_code == 0);
  // The same requests into an engine that runs one sequence at a time: a request of ~210
  // output tokens holds it for ~210 decode steps of several ms each, so it completes well
  // under 1 req/s against the 8 req/s sent, and the backlog grows with every arrival.
  const std::string slow = " --set cluster.pools.0.engine.max_num_seqs=1";
  const auto json_run = run_cli("replay " + out + "/vllm_bench.json --scenario " + scenario + slow + " --json");
  INFO(json_run.output);
  const auto j = nlohmann::json::parse(json_run.output.substr(0, json_run.output.rfind('}') + 1));
  REQUIRE(j["simulated"]["saturated"] == true);
  const std::string note = j["simulated"]["saturation_note"].get<std::string>();
  const bool rule = note.rfind("the backlog grew without bound", 0) == 0 || note.rfind("served ", 0) == 0;
  CHECK(rule);

  const auto text = run_cli("replay " + out + "/vllm_bench.json --scenario " + scenario + slow);
  INFO(text.output);
  CHECK(text.output.find("unfinished (saturated: " + note + ")\n") != std::string::npos);
  CHECK(text.output.find("the queue was still growing") == std::string::npos);
}

}  // namespace replay_saturation_note_test
