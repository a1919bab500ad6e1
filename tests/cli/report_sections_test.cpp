// `servesim report` on a run folder says which sections the page lacks for want of a file,
// and which output key writes it.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/cli_test_util.h"

namespace report_sections_test {

using namespace servesim::testing;

TEST_CASE("report: a run folder without requests.csv or timeseries.csv is reported as a page without those charts",
          "[report][html]") {
  TempDir dir("report-sections");
  const std::string run = (dir.path / "run").string();
  REQUIRE(run_cli("run scenarios/quickstart.yaml -q --set stop.requests=20 --out " + run).exit_code == 0);
  REQUIRE(std::filesystem::exists(dir.path / "run" / "requests.csv"));

  auto r = run_cli("report " + run);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("the page has no timeline (no timeseries.csv: outputs.timeseries: true writes it)\n") !=
        std::string::npos);
  CHECK(r.output.find("no latency distributions") == std::string::npos);

  std::filesystem::remove(dir.path / "run" / "requests.csv");
  r = run_cli("report " + run);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("the page has no latency distributions (no requests.csv: outputs.requests_csv: true writes it) "
                      "and no timeline") != std::string::npos);
  CHECK(run_cli("report " + run + " -q").output.empty());
}

}  // namespace report_sections_test
