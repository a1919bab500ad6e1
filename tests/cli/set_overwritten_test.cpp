// A --set that a study's own key overwrites on every run (a sweep axis, a search-space key,
// search --rate's key) is refused before any run, rather than having no effect unsaid.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/cli_test_util.h"

namespace set_overwritten_test {

using namespace servesim::testing;

TEST_CASE("sweep: a --set of an axis key - or of a key under it - is refused", "[sweep]") {
  TempDir dir("set-overwritten");
  const std::string out = " -q --out " + (dir.path / "sw").string();
  // The axis set stop.requests to 20 and 40 and the --set's 30 was run nowhere.
  const auto same = run_cli("sweep scenarios/quickstart.yaml --axis stop.requests=20,40 --set stop.requests=30" + out);
  INFO(same.output);
  CHECK(same.exit_code == 2);
  CHECK(same.output.find("--set: stop.requests: is also the sweep axis stop.requests, which sets it on every run, so "
                         "this --set would have no effect") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "sw" / "sweep.json"));

  // An axis replacing a whole mapping replaces the --set inside it too.
  const auto under = run_cli("sweep scenarios/quickstart.yaml --axis 'stop={requests: 10}' --set stop.requests=5" + out);
  CHECK(under.exit_code == 2);
  CHECK(under.output.find("--set: stop.requests: is under stop, the sweep axis which sets it") != std::string::npos);

  // A --set beside the axis, or above it, still applies and runs.
  CHECK(run_cli("sweep scenarios/quickstart.yaml --axis stop.requests=10 --set seed=3" + out).exit_code == 0);
}

TEST_CASE("search: a --set of a space key or of --rate's key is refused", "[search]") {
  TempDir dir("set-overwritten-search");
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, 2]\n");
  const std::string cmd = "search scenarios/whatif-07-interactive-batch.yaml --space " + space.string() + " --out " +
                          (dir.path / "s").string() + " -q --class chat ";
  const auto s = run_cli(cmd + "--set cluster.pools.0.replicas=3");
  INFO(s.output);
  CHECK(s.exit_code == 2);
  CHECK(s.output.find("--set: cluster.pools.0.replicas: is also a key of the search space") != std::string::npos);
  const auto r = run_cli(cmd + "--rate 5 --set workload.0.arrival.rate=2");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--set: workload.0.arrival.rate: is also the key --rate sets, workload.0.arrival.rate") !=
        std::string::npos);
}

TEST_CASE("set seed beside --seed is refused by run - sweep - capacity", "[cli]") {
  TempDir dir("set-seed");
  const std::string both = " --seed 3 --set seed=5 ";
  for (const std::string& cmd : {"run scenarios/quickstart.yaml -q --set stop.requests=5 --out " + (dir.path / "r").string(),
                                "sweep scenarios/quickstart.yaml --axis stop.requests=5 -q --out " + (dir.path / "s").string(),
                                std::string("capacity scenarios/quickstart.yaml --slo ttft_p99=1s -q")}) {
    const auto r = run_cli(cmd + both);
    INFO(cmd + "\n" + r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("--set: seed: is also the key --seed sets, seed, which sets it on every run") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir.path / "r" / "summary.json"));
  // Either alone is fine.
  CHECK(run_cli("run scenarios/quickstart.yaml -q --set stop.requests=5 --set seed=5 --out " + (dir.path / "a").string())
            .exit_code == 0);
}

}  // namespace set_overwritten_test
