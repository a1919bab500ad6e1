// `--class NAME` of capacity and search: a name that is no class of the scenario is refused
// (exit 2) with the nearest class, or the list of classes, before any run starts.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"

namespace class_selector_test {

using namespace servesim::testing;

namespace {

// whatif-07 has two classes, chat and batch.
const std::string kScenario = "scenarios/whatif-07-interactive-batch.yaml";

}  // namespace

TEST_CASE("capacity and search: a misspelt --class is refused with did-you-mean", "[sweep]") {
  const auto c = run_cli("capacity " + kScenario + " --slo ttft_p99=1s --class chta");
  INFO(c.output);
  CHECK(c.exit_code == 2);
  CHECK(c.output.find(kScenario + ": --class: unknown workload class 'chta'; did you mean 'chat'?") != std::string::npos);

  TempDir dir("class-selector");
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, 2]\n");
  const auto s = run_cli("search " + kScenario + " --space " + space.string() + " --slo ttft_p99=1s --class bacth");
  INFO(s.output);
  CHECK(s.exit_code == 2);
  CHECK(s.output.find("--class: unknown workload class 'bacth'; did you mean 'batch'?") != std::string::npos);
}

TEST_CASE("capacity: a --class far from every class lists the classes", "[sweep]") {
  const auto c = run_cli("capacity " + kScenario + " --slo ttft_p99=1s --class interactive");
  CHECK(c.exit_code == 2);
  CHECK(c.output.find("unknown workload class 'interactive'; valid classes: chat, batch") != std::string::npos);
}

}  // namespace class_selector_test
