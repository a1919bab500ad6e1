// What keeps a sweep from answering silently wrong (docs/sweeps.md): shards of different
// sweeps are not merged, overlapping axes are refused, points whose figures cannot be judged
// stay off the Pareto front with the reason, and a point too long to finish is warned of.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"
#include "sim/core/errors.h"
#include "sim/study/sweep_fingerprint.h"
#include "sim/study/sweep_spec.h"
#include "sim/study/sweep_study.h"

namespace sweep_judged_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("sweep fingerprint: FNV-1a 64 of the scenario's bytes - the published test vectors", "[sweep][merge]") {
  TempDir dir("sweep-fnv");
  // The FNV authors' vectors: "" is the offset basis, "a" and "foobar" their 64-bit FNV-1a.
  CHECK(servesim::file_fnv1a64(dir.write("empty.txt", "").string()) == "cbf29ce484222325");
  CHECK(servesim::file_fnv1a64(dir.write("a.txt", "a").string()) == "af63dc4c8601ec8c");
  CHECK(servesim::file_fnv1a64(dir.write("foobar.txt", "foobar").string()) == "85944171f73967e8");
  CHECK_THROWS_AS(servesim::file_fnv1a64((dir.path / "none.yaml").string()), servesim::ConfigError);
}

TEST_CASE("merge: shards of different sweeps - axis values or --set or seed - are refused naming what differs",
          "[sweep][merge]") {
  TempDir dir("sweep-mismatch");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 300)).string();
  auto sweep = [&](const std::string& args, const std::string& out) {
    const auto r = run_cli("sweep " + scenario + " -q " + args + " --out " + (dir.path / out).string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return (dir.path / out / "sweep.json").string();
  };
  const std::string a0 = sweep("--axis workload.0.arrival.rate=20,40,60 --shard 0/2", "a0");
  const std::string a1 = sweep("--axis workload.0.arrival.rate=20,40,60 --shard 1/2", "a1");
  const std::string b1 = sweep("--axis workload.0.arrival.rate=20,40,80 --shard 1/2", "b1");
  const std::string s1 = sweep("--axis workload.0.arrival.rate=20,40,60 --shard 1/2 --set stop.requests=200", "s1");
  const std::string d1 = sweep("--axis workload.0.arrival.rate=20,40,60 --shard 1/2 --seed 3", "d1");

  // The header says what defines the sweep; the shard is not part of it.
  const json h0 = json::parse(read_file(a0));
  CHECK(h0["defined_by"]["scenario_fnv1a64"] == servesim::file_fnv1a64(scenario));
  CHECK(h0["defined_by"]["axes"]["workload.0.arrival.rate"] == json({"20", "40", "60"}));
  CHECK(h0["defined_by"]["seed"].is_null());
  CHECK(h0["defined_by"] == json::parse(read_file(a1))["defined_by"]);

  const auto out = (dir.path / "m").string();
  CHECK(run_cli("merge " + a0 + " " + a1 + " -q -o " + out).exit_code == 0);
  const auto axes = run_cli("merge " + a0 + " " + b1 + " -q -o " + out);
  CHECK(axes.exit_code == 2);
  CHECK(has(axes.output, b1 + ": defined_by: differs from " + a0));
  CHECK(has(axes.output, "axes is {\"workload.0.arrival.rate\":[\"20\",\"40\",\"80\"]} here but "
                         "{\"workload.0.arrival.rate\":[\"20\",\"40\",\"60\"]} there"));
  const auto set = run_cli("merge " + a0 + " " + s1 + " -q -o " + out);
  CHECK(set.exit_code == 2);
  CHECK(has(set.output, "set is [\"stop.requests=200\"] here but [] there"));
  const auto seed = run_cli("merge " + a0 + " " + d1 + " -q -o " + out);
  CHECK(seed.exit_code == 2);
  CHECK(has(seed.output, "seed is 3 here but null there"));

  // A scenario edited between shards: its text differs, so its hash does.
  {
    std::ofstream(scenario, std::ios::app) << "# edited\n";
  }
  const std::string e1 = sweep("--axis workload.0.arrival.rate=20,40,60 --shard 1/2", "e1");
  const auto edited = run_cli("merge " + a0 + " " + e1 + " -q -o " + out);
  CHECK(edited.exit_code == 2);
  CHECK(has(edited.output, "scenario_fnv1a64 is"));

  // A table without the header (an older servesim's) merges, with a warning that it could
  // not be checked, and the merged table claims no fingerprint.
  json old = json::parse(read_file(a1));
  old.erase("defined_by");
  const auto old_path = dir.write("old.json", old.dump(2));
  const auto unchecked = run_cli("merge " + a0 + " " + old_path.string() + " -o " + (dir.path / "u").string());
  INFO(unchecked.output);
  CHECK(unchecked.exit_code == 0);
  CHECK(has(unchecked.output, "warning: cannot check that the tables are shards of one sweep"));
  CHECK(has(unchecked.output, old_path.string() + " has no defined_by"));
  CHECK_FALSE(json::parse(read_file(dir.path / "u" / "sweep.json")).contains("defined_by"));
}

TEST_CASE("sweep: an axis under another axis is refused naming both", "[sweep]") {
  TempDir dir("sweep-overlap");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 100)).string();
  const std::string out = " -q --out " + (dir.path / "o").string();
  // Every point would set stop={requests: 10} and then stop.requests=30 or 40: the outer
  // axis's requests would be lost.
  const auto inner = run_cli("sweep " + scenario + " --axis 'stop={requests: 10}' --axis stop.requests=30,40" + out);
  CHECK(inner.exit_code == 2);
  CHECK(has(inner.output, "--axis: stop.requests: overlaps the axis stop (stop.requests lies under stop)"));
  // The other order: stop={...} would replace the inner axis's value on every point.
  const auto outer = run_cli("sweep " + scenario + " --axis stop.requests=30,40 --axis 'stop={requests: 10}'" + out);
  CHECK(outer.exit_code == 2);
  CHECK(has(outer.output, "--axis: stop: overlaps the axis stop.requests (stop.requests lies under stop)"));
  // A list index written two ways is one key.
  const auto twice = run_cli("sweep " + scenario +
                             " --axis 'workload.0.input={fixed: 5}' --axis 'workload.00.input={fixed: 6}'" + out);
  CHECK(twice.exit_code == 2);
  CHECK(has(twice.output, "workload.00.input: is given as an axis twice"));
  CHECK_FALSE(std::filesystem::exists(dir.path / "o" / "sweep.json"));

  // Siblings and keys that merely share a prefix of their text are apart.
  using servesim::parse_axis;
  CHECK_NOTHROW(servesim::check_axes_apart({parse_axis("stop.requests=1,2"), parse_axis("stop.time=1s,2s")}));
  CHECK_NOTHROW(
      servesim::check_axes_apart({parse_axis("workload.0.input={fixed: 1}"), parse_axis("workload.0.input_x=1,2")}));
  CHECK_THROWS_AS(servesim::check_axes_apart({parse_axis("workload.1.input=1"), parse_axis("workload.01=2")}),
                  servesim::ConfigError);
}

TEST_CASE("sweep: a point too short to judge is off the Pareto front with the reason and the length to judge it",
          "[sweep][pareto]") {
  TempDir dir("sweep-short");
  // M/D/1 at 20 req/s, 10 ms service (rho 0.2). Point 0 runs one request: its TTFT is one
  // 10 ms prefill step on an empty replica, below any p99 of point 1 (2,000 requests, which
  // queue behind one another), so by its figures it would be on the front. One arrival cannot
  // tell whether the cluster kept up (metrics.md, Saturation: fewer than two arrivals asks
  // for 2x), so it is too short to judge; lengthened as capacity and explain lengthen a run,
  // by max(2, 1.25 x 2) = 2.5x, it would run ceil(1 x 2.5) = 3 requests.
  const auto scenario = dir.write("md1.yaml", md1_scenario(20, 2000)).string();
  const auto r = run_cli("sweep " + scenario + " --axis stop.requests=1,2000 --out " + (dir.path / "o").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json t = json::parse(read_file(dir.path / "o" / "sweep.json"));
  REQUIRE(t["rows"].size() == 2);
  const json& short_row = t["rows"][0];
  const json& long_row = t["rows"][1];
  CHECK(short_row["summary"]["too_short_to_judge"] == 1);
  CHECK(short_row["summary"]["p99_ttft_ms"].get<double>() == Approx(10.0));
  CHECK(long_row["summary"]["too_short_to_judge"] == 0);
  CHECK(long_row["summary"]["p99_ttft_ms"].get<double>() > 10.0);
  CHECK(short_row["pareto"] == false);
  CHECK(short_row["pareto_excluded"] == "too_short_to_judge");
  CHECK(long_row["pareto"] == true);
  CHECK(long_row["pareto_excluded"].is_null());
  CHECK(has(read_file(dir.path / "o" / "sweep.csv"), "point,stop.requests,pareto,pareto_excluded,error,"));
  CHECK(has(r.output, "note: 1 point is off the Pareto front because its figures cannot be ranked "
                      "(pareto_excluded): too_short_to_judge (point 0)"));
  CHECK(has(r.output, "note: point 0 is too short to judge whether it kept up; stop.requests=3 or longer would "
                      "judge it"));
}

TEST_CASE("sweep: the largest point's long-run warning comes once before any point runs", "[sweep][long_run]") {
  TempDir dir("sweep-long");
  // Point 1 asks for 2e13 requests: at 370,000 simulated requests per wall second
  // (docs/performance.md) 5.41e7 s, 625.6 days.
  servesim::SweepRequest request;
  request.scenario_path = dir.write("md1.yaml", md1_scenario(4, 10)).string();
  request.axes = {servesim::parse_axis("stop.requests=10,2e13,20")};
  std::vector<std::string> warnings;
  struct Stop {};
  CHECK_THROWS_AS(servesim::run_sweep(request, {}, {},
                                      [&](const std::string& w) {
                                        warnings.push_back(w);
                                        throw Stop{};  // before any point runs
                                      }),
                  Stop);
  REQUIRE(warnings.size() == 1);
  CHECK(has(warnings[0], "warning: point 1, the sweep's largest, simulates about 2e+13 requests (set by stop.requests)"));
  CHECK(has(warnings[0], "about 625.6 days"));
  // Points that finish at once: no warning.
  request.axes = {servesim::parse_axis("stop.requests=10,20")};
  warnings.clear();
  servesim::run_sweep(request, {}, {}, [&](const std::string& w) { warnings.push_back(w); });
  CHECK(warnings.empty());
}

TEST_CASE("capacity and search warn once of a scenario too long to run - before any run", "[sweep][long_run]") {
  TempDir dir("study-long");
  // 2e13 requests at 370,000 simulated requests per wall second (docs/performance.md):
  // 5.41e7 s, 625.6 days. A misspelt --class and a missing space file stop each study after
  // the warning and before any run.
  const auto scenario = dir.write("md1.yaml", md1_scenario(4, 20'000'000'000'000)).string();
  const auto capacity = run_cli("capacity " + scenario + " --class nosuch -q");
  CHECK(capacity.exit_code == 2);
  CHECK(has(capacity.output, "warning: capacity's runs start from this scenario, which simulates about 2e+13 requests "
                             "(set by stop.requests)"));
  CHECK(has(capacity.output, "about 625.6 days"));
  const auto search = run_cli("search " + scenario + " --space " + (dir.path / "none.yaml").string() + " -q");
  CHECK(search.exit_code == 2);
  CHECK(has(search.output, "warning: search's runs start from this scenario, which simulates about 2e+13 requests"));
  // A scenario of ordinary length: no warning.
  const auto small = dir.write("small.yaml", md1_scenario(4, 100)).string();
  CHECK_FALSE(has(run_cli("capacity " + small + " --class nosuch -q").output, "simulates about"));
}

}  // namespace sweep_judged_test
