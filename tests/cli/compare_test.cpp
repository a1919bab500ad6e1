// `servesim compare` through the real binary: exit 0 on equal runs, 1 on an injected
// regression, 2 on bad input with the file and field named.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

using namespace servesim::testing;
using nlohmann::ordered_json;

namespace {

// One real summary.json (and a sweep table) made once per test case.
struct Runs {
  TempDir dir{"compare"};
  std::filesystem::path summary, sweep;
  Runs() {
    const auto scenario = dir.write("md1.yaml", md1_scenario(60, 3000));
    REQUIRE(run_cli("run " + scenario.string() + " -q --out " + (dir.path / "base").string()).exit_code == 0);
    REQUIRE(run_cli("sweep " + scenario.string() + " --axis workload.0.arrival.rate=30,60 -q --out " +
                    (dir.path / "sw").string()).exit_code == 0);
    summary = dir.path / "base" / "summary.json";
    sweep = dir.path / "sw" / "sweep.json";
  }
  ordered_json load(const std::filesystem::path& p) const { return ordered_json::parse(read_file(p)); }
  std::string save(const std::string& name, const ordered_json& j) const {
    std::ofstream(dir.path / name) << j.dump(2);
    return (dir.path / name).string();
  }
  CliResult compare(const std::string& a, const std::string& b, const std::string& extra = "") const {
    return run_cli("compare " + a + " " + b + " " + extra);
  }
};

}  // namespace

TEST_CASE("compare: an identical run passes with exit 0", "[sweep]") {
  Runs runs;
  const auto r = runs.compare(runs.summary.string(), runs.summary.string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("0 regressions beyond tolerance") != std::string::npos);
  CHECK(runs.compare(runs.sweep.string(), runs.sweep.string()).exit_code == 0);
}

TEST_CASE("compare: a field moved 20% the bad way is a regression - exit 1 - the good way is not", "[sweep]") {
  Runs runs;
  auto worse = runs.load(runs.summary);
  const double p99 = worse["p99_ttft_ms"].get<double>();
  worse["p99_ttft_ms"] = p99 * 1.2;
  const auto r = runs.compare(runs.summary.string(), runs.save("worse.json", worse));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("p99_ttft_ms") != std::string::npos);
  CHECK(r.output.find("+20.00%") != std::string::npos);
  CHECK(r.output.find("REGRESSION") != std::string::npos);
  CHECK(r.output.find("1 regression beyond tolerance") != std::string::npos);

  // A per-field tolerance above the change lets it pass; one below keeps it failing.
  CHECK(runs.compare(runs.summary.string(), (runs.dir.path / "worse.json").string(),
                     "--tolerance-for p99_ttft_ms=25%").exit_code == 0);
  CHECK(runs.compare(runs.summary.string(), (runs.dir.path / "worse.json").string(),
                     "--tolerance 30% --tolerance-for p99_ttft_ms=10%").exit_code == 1);
  CHECK(runs.compare(runs.summary.string(), (runs.dir.path / "worse.json").string(), "--tolerance 25%").exit_code == 0);

  // Throughput down 20% in one class is a regression; latency down 20% is an improvement.
  auto slower = runs.load(runs.summary);
  slower["classes"]["default"]["output_throughput"] = slower["classes"]["default"]["output_throughput"].get<double>() * 0.8;
  const auto t = runs.compare(runs.summary.string(), runs.save("slower.json", slower));
  CHECK(t.exit_code == 1);
  CHECK(t.output.find("classes.default") != std::string::npos);
  auto better = runs.load(runs.summary);
  better["p99_ttft_ms"] = p99 * 0.8;
  better["completed"] = better["completed"].get<long>() + 1;
  const auto b = runs.compare(runs.summary.string(), runs.save("better.json", better));
  CHECK(b.exit_code == 0);
  CHECK(b.output.find("improved") != std::string::npos);

  // rejected 0 -> 1 has no relative size; any rise from zero is a regression.
  auto rejected = runs.load(runs.summary);
  REQUIRE(rejected["rejected"] == 0);
  rejected["rejected"] = 1;
  CHECK(runs.compare(runs.summary.string(), runs.save("rejected.json", rejected)).exit_code == 1);
}

TEST_CASE("compare: bad input exits 2 naming the file and the field", "[sweep]") {
  Runs runs;
  auto missing = runs.load(runs.summary);
  missing["classes"]["default"].erase("p99_itl_ms");
  const std::string missing_path = runs.save("missing.json", missing);
  const auto m = runs.compare(runs.summary.string(), missing_path);
  CHECK(m.exit_code == 2);
  CHECK(m.output.find(missing_path) != std::string::npos);
  CHECK(m.output.find("classes.default.p99_itl_ms") != std::string::npos);

  std::ofstream(runs.dir.path / "broken.json") << "{\"completed\": 3,\n";
  const auto nj = runs.compare(runs.summary.string(), (runs.dir.path / "broken.json").string());
  CHECK(nj.exit_code == 2);
  CHECK(nj.output.find("not valid JSON") != std::string::npos);

  const auto nf = runs.compare(runs.summary.string(), (runs.dir.path / "nowhere.json").string());
  CHECK(nf.exit_code == 2);
  CHECK(nf.output.find("nowhere.json: file not found") != std::string::npos);

  CHECK(runs.compare(runs.summary.string(), runs.sweep.string()).exit_code == 2);  // summary vs sweep
  CHECK(runs.compare(runs.summary.string(), runs.summary.string(), "--tolerance 5").exit_code == 2);
  CHECK(run_cli("compare " + runs.summary.string()).exit_code == 2);
}

TEST_CASE("compare: sweep tables are matched by point and a regressed point exits 1", "[sweep]") {
  Runs runs;
  auto worse = runs.load(runs.sweep);
  auto& row = worse["rows"][1]["summary"];
  row["p99_e2el_ms"] = row["p99_e2el_ms"].get<double>() * 1.2;
  const auto r = runs.compare(runs.sweep.string(), runs.save("worse-sweep.json", worse));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("point.1") != std::string::npos);
  CHECK(r.output.find("p99_e2el_ms") != std::string::npos);

  auto short_table = runs.load(runs.sweep);
  short_table["rows"].erase(1);
  const auto s = runs.compare(runs.sweep.string(), runs.save("short.json", short_table));
  CHECK(s.exit_code == 2);
  CHECK(s.output.find("point 1") != std::string::npos);
}
