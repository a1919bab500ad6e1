// `servesim compare` on runs of different deployments: summary.json records what ran
// (`deployment`), and compare states every difference before its table; --same-deployment
// refuses them (exit 2, naming both values). A file without the block cannot be checked,
// and compare says so (docs/sweeps.md, "servesim compare").
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

namespace compare_deployment_test {

using namespace servesim::testing;
using nlohmann::ordered_json;

namespace {

// The M/D/1 scenario (a constant 10 ms step), run as it is and with one pool key changed.
// The constant cost model ignores the model and the hardware, so every figure of the three
// runs is the same: only the deployment block can tell them apart.
struct Runs {
  TempDir dir{"compare_deployment"};
  std::string base, other_model, other_hardware;
  Runs() {
    const auto scenario = dir.write("md1.yaml", md1_scenario(30, 200)).string();
    auto run = [&](const std::string& name, const std::string& set) {
      const std::string out = (dir.path / name).string();
      const auto r = run_cli("run " + scenario + " -q --out " + out + set);
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      return out + "/summary.json";
    };
    base = run("base", "");
    other_model = run("model", " --set cluster.pools.0.model=llama-3.2-1b");
    other_hardware = run("hardware", " --set cluster.pools.0.hardware=h200");
  }
  ordered_json load(const std::string& p) const { return ordered_json::parse(read_file(p)); }
  std::string save(const std::string& name, const ordered_json& j) const {
    std::ofstream(dir.path / name) << j.dump(2);
    return (dir.path / name).string();
  }
};

}  // namespace

TEST_CASE("summary json: the deployment block names the scenario file and each pool's model and hardware",
          "[cli][sweep]") {
  Runs runs;
  const ordered_json s = runs.load(runs.base);
  REQUIRE(s.contains("deployment"));
  const ordered_json& d = s["deployment"];
  CHECK(d["scenario"] == "md1.yaml");
  const ordered_json& main = d["pools"]["main"];
  CHECK(main["model"] == "llama-3-8b");
  CHECK(main["hardware"] == "h100-sxm");
  CHECK(main["weights"] == "bf16");
  CHECK(main["tp"] == 1);
  CHECK(main["pp"] == 1);
  CHECK(main["replicas"] == 1);
  CHECK(main["cost_model"] == "constant");
  CHECK(main["engine"].is_null());  // md1 names no engine preset
  CHECK_FALSE(main.contains("min_replicas"));  // a fixed pool
  CHECK(runs.load(runs.other_model)["deployment"]["pools"]["main"]["model"] == "llama-3.2-1b");
}

TEST_CASE("compare: summaries of different models or hardware are compared with the difference stated first - "
          "--same-deployment refuses them",
          "[cli][sweep]") {
  Runs runs;
  // Equal figures: without the deployment block this would read as "no change".
  const auto m = run_cli("compare " + runs.base + " " + runs.other_model);
  INFO(m.output);
  CHECK(m.exit_code == 0);
  CHECK(m.output.rfind("deployments differ (" + runs.base + " -> " + runs.other_model + ")", 0) == 0);  // first line
  CHECK(m.output.find("  pool main: model llama-3-8b -> llama-3.2-1b\n") != std::string::npos);
  CHECK(m.output.find("0 regressions beyond tolerance") != std::string::npos);

  // Another GPU: the same step time at H200's higher price per GPU-hour, so the unit prices
  // rise by the ratio of the two prices (a real what-if answer, exit 1), under the header.
  const auto h = run_cli("compare " + runs.base + " " + runs.other_hardware);
  INFO(h.output);
  CHECK(h.exit_code == 1);
  CHECK(h.output.find("  pool main: hardware h100-sxm -> h200\n") != std::string::npos);
  CHECK(h.output.find("model") == std::string::npos);  // the same model is not a difference
  CHECK(h.output.find("cost_per_request") != std::string::npos);
  CHECK(h.output.find("+26.67%") != std::string::npos);  // $3.80 / $3.00 per GPU-hour (configs/hardware)

  // The JSON carries the same, and --quiet still says it (on stderr).
  const auto j = run_cli("compare " + runs.base + " " + runs.other_model + " --json");
  REQUIRE(j.exit_code == 0);
  const auto doc = ordered_json::parse(j.output);
  CHECK(doc["deployment"]["checked"] == true);
  CHECK(doc["deployment"]["differences"] ==
        ordered_json::parse(R"([{"pool": "main", "key": "model", "baseline": "llama-3-8b", "candidate": "llama-3.2-1b"}])"));
  const auto q = run_cli("compare " + runs.base + " " + runs.other_model + " --quiet");
  CHECK(q.exit_code == 0);
  CHECK(q.output.find("servesim compare: deployments differ") != std::string::npos);

  // --same-deployment: exit 2, naming the key and both values.
  const auto strict = run_cli("compare " + runs.base + " " + runs.other_model + " --same-deployment");
  INFO(strict.output);
  CHECK(strict.exit_code == 2);
  CHECK(strict.output.find(runs.other_model + ": deployment.pools.main.model: is llama-3.2-1b but llama-3-8b in " +
                           runs.base) != std::string::npos);
  CHECK(run_cli("compare " + runs.base + " " + runs.base + " --same-deployment").exit_code == 0);

  // The same run compared with itself: no deployment line at all.
  const auto same = run_cli("compare " + runs.base + " " + runs.base);
  CHECK(same.output.find("deploy") == std::string::npos);
}

TEST_CASE("compare: a summary without a deployment block (an older servesim) cannot be checked - and says so",
          "[cli][sweep]") {
  Runs runs;
  auto old = runs.load(runs.base);
  old.erase("deployment");
  const std::string old_path = runs.save("old.json", old);
  const auto r = run_cli("compare " + old_path + " " + runs.other_model);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("deployment not checked: " + old_path +
                      " has no \"deployment\" block (written by an older servesim), so the two runs may be of "
                      "different models or hardware") != std::string::npos);
  const auto strict = run_cli("compare " + old_path + " " + runs.other_model + " --same-deployment");
  CHECK(strict.exit_code == 2);
  CHECK(strict.output.find("--same-deployment cannot check") != std::string::npos);
  const auto j = run_cli("compare " + old_path + " " + runs.base + " --json");
  const auto doc = ordered_json::parse(j.output.substr(0, j.output.rfind('}') + 1));
  CHECK(doc["deployment"]["checked"] == false);
}

TEST_CASE("compare: a figure with samples on one side only is shown - lost samples regress and new ones are not ok",
          "[cli][sweep]") {
  Runs runs;
  // md1's requests have one output token: no TPOT, so p99_tpot_ms is null in the run.
  const ordered_json base = runs.load(runs.base);
  REQUIRE(base["p99_tpot_ms"].is_null());
  auto with_tpot = base;
  with_tpot["p99_tpot_ms"] = 12.5;
  const std::string with_path = runs.save("with-tpot.json", with_tpot);

  const auto appeared = run_cli("compare " + runs.base + " " + with_path);
  INFO(appeared.output);
  CHECK(appeared.exit_code == 0);
  CHECK(appeared.output.find("new: no samples in the baseline") != std::string::npos);  // shown without --all
  const auto j = ordered_json::parse(run_cli("compare " + runs.base + " " + with_path + " --json").output);
  bool found = false;
  for (const auto& c : j["changes"])
    if (c["block"] == "overall" && c["field"] == "p99_tpot_ms") {
      found = true;
      CHECK(c["verdict"] == "no_baseline_samples");
      CHECK(c["change"] == "n/a");
    }
  CHECK(found);

  const auto lost = run_cli("compare " + with_path + " " + runs.base);
  CHECK(lost.exit_code == 1);
  CHECK(lost.output.find("REGRESSION: no samples now") != std::string::npos);
}

}  // namespace compare_deployment_test
