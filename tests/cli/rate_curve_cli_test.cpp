// `arrival.rate_curve`: a measured rate over time from a CSV, run as stages. The same curve
// as the stages of tests/cli/arrival_stages_cli_test.cpp gives the same requests, byte for
// byte; scale and repeat multiply them; a malformed curve is refused at its row.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "cli/cli_test_util.h"

namespace rate_curve_cli_test {

using namespace servesim::testing;

namespace {

std::string scenario(const std::string& arrival) {
  return "name: curve\nseed: 9\nworkload:\n  - class: chat\n    arrival: " + arrival +
         "\n    input: {fixed: 200}\n    output: {fixed: 20}\n"
         "cluster:\n  pools:\n    - {name: main, model: llama-3-8b, hardware: h100-sxm, engine: {policy: "
         "chunked-prefill}}\n";
}

}  // namespace

TEST_CASE("rate curve: a CSV curve runs as the stages it describes", "[cli][workload]") {
  TempDir dir("rate-curve");
  dir.write("day.csv", "time_s,rate\n0,5\n20,20\n");
  const auto staged = dir.write(
      "staged.yaml", scenario("{process: constant, stages: [{duration: 20s, rate: 5}, {duration: 20s, rate: 20}]}"));
  const auto curved = dir.write("curved.yaml", scenario("{process: constant, rate_curve: {path: day.csv, period: 40s}}"));
  REQUIRE(run_cli("run " + staged.string() + " -q --out " + (dir.path / "staged").string()).exit_code == 0);
  const auto r = run_cli("run " + curved.string() + " -q --out " + (dir.path / "curved").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string requests = read_file(dir.path / "staged" / "requests.csv");
  CHECK(requests.size() > 1000);
  CHECK(read_file(dir.path / "curved" / "requests.csv") == requests);

  // Twice the rates, the day run twice: (5 x 20 + 20 x 20) x 2 x 2 = 2000 requests exactly.
  const auto doubled = dir.write(
      "doubled.yaml", scenario("{process: constant, rate_curve: {path: day.csv, period: 40s, scale: 2, repeat: 2}}"));
  const auto d = run_cli("validate " + doubled.string());
  INFO(d.output);
  REQUIRE(d.exit_code == 0);
  REQUIRE(run_cli("run " + doubled.string() + " -q --out " + (dir.path / "doubled").string()).exit_code == 0);
  const std::string rows = read_file(dir.path / "doubled" / "requests.csv");
  CHECK(std::count(rows.begin(), rows.end(), '\n') == 2001);

  // Without a period, the last row's time ends the curve.
  dir.write("ends.csv", "time_s,rate\n0,5\n20,20\n40,0\n");
  const auto ends = dir.write("ends.yaml", scenario("{process: constant, rate_curve: {path: ends.csv}}"));
  REQUIRE(run_cli("run " + ends.string() + " -q --out " + (dir.path / "ends").string()).exit_code == 0);
  CHECK(read_file(dir.path / "ends" / "requests.csv") == requests);
}

TEST_CASE("rate curve: a malformed curve is refused at its file and row and column", "[cli][workload]") {
  TempDir dir("rate-curve-bad");
  dir.write("falls.csv", "time_s,rate\n0,5\n30,2\n20,1\n");
  const auto falls = dir.write("falls.yaml", scenario("{process: poisson, rate_curve: {path: falls.csv, period: 1h}}"));
  auto r = run_cli("validate " + falls.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("falls.csv:4:") != std::string::npos);
  CHECK(r.output.find("times must rise") != std::string::npos);

  dir.write("late.csv", "time_s,rate\n10,5\n");
  const auto late = dir.write("late.yaml", scenario("{process: poisson, rate_curve: {path: late.csv, period: 1h}}"));
  r = run_cli("validate " + late.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("starts at time 0") != std::string::npos);

  const auto both = dir.write("both.yaml", scenario("{process: poisson, rate: 3, rate_curve: {path: late.csv}}"));
  r = run_cli("validate " + both.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("give one of 'rate'") != std::string::npos);

  const auto missing = dir.write("missing.yaml", scenario("{process: poisson, rate_curve: {path: nowhere.csv}}"));
  r = run_cli("validate " + missing.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("nowhere.csv") != std::string::npos);

  dir.write("short.csv", "time_s,rate\n0,5\n100,0\n");
  const auto short_period =
      dir.write("short.yaml", scenario("{process: poisson, rate_curve: {path: short.csv, period: 50s}}"));
  r = run_cli("validate " + short_period.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("rate_curve.period") != std::string::npos);
}

}  // namespace rate_curve_cli_test
