// `servesim run`'s closing notes: a workload that runs out before stop.requests is said to,
// so figures of fewer requests than asked for are not read as the asked-for run.
#include <catch2/catch.hpp>

#include <regex>

#include "cli/cli_test_util.h"

namespace run_notes_test {

using namespace servesim::testing;

namespace {

// Constant arrivals at 2 req/s for 5 s, then the stages end: about 10 arrivals in all.
const char* kStages = R"(name: stages
seed: 1
workload:
  - class: a
    arrival: {process: constant, stages: [{duration: 5s, rate: 2}]}
    input: 100
    output: 10
cluster:
  pools:
    - {name: p, replicas: 1, model: llama-3-8b, hardware: h100-sxm}
outputs: {requests_csv: false}
)";

}  // namespace

TEST_CASE("run: a workload that runs out before stop.requests says so", "[cli]") {
  TempDir dir("run-notes");
  const auto scenario = dir.write("stages.yaml", kStages);
  const auto r = run_cli("run " + scenario.string() + " --set stop.requests=1000 --out " + (dir.path / "a").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.output, m, std::regex("arrived ([0-9]+),")));
  CHECK(std::stoi(m[1]) < 1000);
  CHECK(r.output.find("note: the workload ran out after " + m[1].str() + " arrivals, before stop.requests (1000)") !=
        std::string::npos);

  const auto reached = run_cli("run " + scenario.string() + " --set stop.requests=5 --out " + (dir.path / "b").string());
  CHECK(reached.exit_code == 0);
  CHECK(reached.output.find("arrived 5,") != std::string::npos);
  CHECK(reached.output.find("ran out") == std::string::npos);
}

}  // namespace run_notes_test
