// `servesim compare` through the real binary: exit 0 on equal runs, 1 on an injected
// regression, 2 on bad input with the file and field named.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

namespace compare_test {

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

TEST_CASE("compare: a run or sweep folder stands for its summary.json or sweep.json - as in Python", "[sweep]") {
  Runs runs;
  const std::string base_dir = runs.summary.parent_path().string();
  const std::string sweep_dir = runs.sweep.parent_path().string();
  const auto by_file = runs.compare(runs.summary.string(), runs.summary.string(), "--json");
  const auto by_folder = runs.compare(base_dir, base_dir, "--json");
  INFO(by_folder.output);
  CHECK(by_folder.exit_code == 0);
  CHECK(by_folder.output == by_file.output);
  CHECK(runs.compare(sweep_dir, sweep_dir).exit_code == 0);
  // A folder with neither file is refused, naming it.
  const auto empty = runs.compare(runs.dir.path.string(), base_dir);
  CHECK(empty.exit_code == 2);
  CHECK(empty.output.find("holding neither summary.json nor sweep.json") != std::string::npos);
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

  // The SLO's figures and unit prices are gated: goodput down 20% and the price per request
  // up 20% each fail; the run's total cost_usd is reported only.
  auto less_good = runs.load(runs.summary);
  REQUIRE(less_good["goodput"].get<double>() > 0);
  less_good["goodput"] = less_good["goodput"].get<double>() * 0.8;
  const auto g = runs.compare(runs.summary.string(), runs.save("less-good.json", less_good));
  CHECK(g.exit_code == 1);
  CHECK(g.output.find("goodput") != std::string::npos);
  auto dearer = runs.load(runs.summary);
  REQUIRE(dearer["cost_per_request"].get<double>() > 0);
  dearer["cost_per_request"] = dearer["cost_per_request"].get<double>() * 1.2;
  CHECK(runs.compare(runs.summary.string(), runs.save("dearer.json", dearer)).exit_code == 1);
  auto total = runs.load(runs.summary);
  total["cost_usd"] = total["cost_usd"].get<double>() * 1.2;
  CHECK(runs.compare(runs.summary.string(), runs.save("total.json", total)).exit_code == 0);

  // A tolerance for a figure that is never gated can fail nothing, and is said so.
  const auto neutral = runs.compare(runs.summary.string(), runs.summary.string(), "--tolerance-for total_output_tokens=0%");
  CHECK(neutral.exit_code == 0);
  CHECK(neutral.output.find("warning: --tolerance-for total_output_tokens names a figure that is reported, never gated") !=
        std::string::npos);
  CHECK(runs.compare(runs.summary.string(), runs.summary.string(), "--tolerance-for p99_ttft_ms=1%").output.find(
            "never gated") == std::string::npos);

  // rejected 0 -> 1 has no relative size; any rise from zero is a regression.
  auto rejected = runs.load(runs.summary);
  REQUIRE(rejected["rejected"] == 0);
  rejected["rejected"] = 1;
  CHECK(runs.compare(runs.summary.string(), runs.save("rejected.json", rejected)).exit_code == 1);
}

TEST_CASE("compare: a file without some figures (an older servesim) is compared on the figures both have - "
          "and the skipped ones are named", "[sweep]") {
  Runs runs;
  // The candidate lacks two figures; one of them, moved the bad way in the baseline's copy,
  // would be a regression if it were compared.
  auto old_format = runs.load(runs.summary);
  old_format.erase("goodput");
  old_format["classes"]["default"].erase("goodput");
  old_format["classes"]["default"].erase("p99_itl_ms");
  const std::string old_path = runs.save("old.json", old_format);
  const auto m = runs.compare(runs.summary.string(), old_path);
  INFO(m.output);
  CHECK(m.exit_code == 0);
  CHECK(m.output.find("warning: " + old_path + " lacks 2 figures the other file has") != std::string::npos);
  CHECK(m.output.find("skipped: goodput (overall, classes.default), p99_itl_ms (classes.default)") != std::string::npos);
  CHECK(m.output.find("3 only in one file, not compared") != std::string::npos);

  // The other way round (a newer candidate): the candidate's extra figures are named too.
  const auto r = runs.compare(old_path, runs.summary.string(), "--json");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("warning: " + runs.summary.string() + " lacks") == std::string::npos);
  CHECK(r.output.find("warning: " + old_path + " lacks 2 figures") != std::string::npos);
  CHECK(r.output.find("\"missing_from\": \"baseline\"") != std::string::npos);

  // What both have is still gated: the shared p99_ttft_ms 20% worse fails.
  auto worse_old = old_format;
  worse_old["p99_ttft_ms"] = worse_old["p99_ttft_ms"].get<double>() * 1.2;
  CHECK(runs.compare(runs.summary.string(), runs.save("worse-old.json", worse_old)).exit_code == 1);

  // Two files of one format compare as before: no warning, the same closing line.
  const auto same = runs.compare(runs.summary.string(), runs.summary.string());
  CHECK(same.output.find("warning") == std::string::npos);
  CHECK(same.output.find("gated figures compared)\n") != std::string::npos);
}

TEST_CASE("compare: summaries of different scenarios (a class or pool in one file only) exit 2", "[sweep]") {
  Runs runs;
  auto extra = runs.load(runs.summary);
  extra["classes"]["batch"] = extra["classes"]["default"];
  const std::string extra_path = runs.save("extra.json", extra);
  const auto e = runs.compare(runs.summary.string(), extra_path);
  CHECK(e.exit_code == 2);
  CHECK(e.output.find(runs.summary.string() + ": classes.batch: missing; the candidate has it: not the same scenario") !=
        std::string::npos);
  const auto f = runs.compare(extra_path, runs.summary.string());
  CHECK(f.exit_code == 2);
  CHECK(f.output.find(runs.summary.string() + ": classes.batch: missing; the baseline has it") != std::string::npos);
}

TEST_CASE("compare: bad input exits 2 naming the file and the field", "[sweep]") {
  Runs runs;
  auto not_number = runs.load(runs.summary);
  not_number["classes"]["default"]["p99_itl_ms"] = "fast";
  const std::string not_number_path = runs.save("not-number.json", not_number);
  const auto m = runs.compare(runs.summary.string(), not_number_path);
  CHECK(m.exit_code == 2);
  CHECK(m.output.find(not_number_path) != std::string::npos);
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

  // The short table as the baseline: point 1 is only the candidate's, and is said so.
  const auto extra = runs.compare((runs.dir.path / "short.json").string(), runs.sweep.string());
  CHECK(extra.exit_code == 0);
  CHECK(extra.output.find("warning: points only the candidate has, not compared: 1") != std::string::npos);

  // A new sweep.json as the baseline, one written before the goodput and cost columns as
  // the candidate: the shared columns are compared, the others named.
  auto older = runs.load(runs.sweep);
  for (auto& row : older["rows"])
    for (const char* f : {"slo_attainment", "goodput", "cost_per_hour", "paid_per_1m_output_tokens"}) row["summary"].erase(f);
  const std::string older_path = runs.save("older-sweep.json", older);
  const auto skew = runs.compare(runs.sweep.string(), older_path);
  INFO(skew.output);
  CHECK(skew.exit_code == 0);
  CHECK(skew.output.find(older_path + " lacks 4 figures the other file has") != std::string::npos);
  CHECK(skew.output.find("goodput (point.0, point.1)") != std::string::npos);

  // A sweep of another scenario with the same axes is compared, with a word.
  auto other = runs.load(runs.sweep);
  other["scenario"] = "other";
  const auto o = runs.compare(runs.sweep.string(), runs.save("other.json", other));
  CHECK(o.exit_code == 0);
  CHECK(o.output.find("warning: the baseline is a sweep of scenario '" + runs.load(runs.sweep)["scenario"].get<std::string>() +
                      "', the candidate of 'other'") != std::string::npos);
}

}  // namespace compare_test
