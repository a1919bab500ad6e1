// Handing over a calibrated profile and the lines calibrate prints around a fit, written
// out by hand.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/report/calibration_report.h"
#include "sim/report/overhead_calibration_report.h"

namespace calibration_report_test {

using namespace servesim;
using servesim::testing::read_file;
using servesim::testing::TempDir;

namespace {

const auto kReport = [](std::ostream& os) { os << "the fit's figures\n"; };

}  // namespace

TEST_CASE("calibration report: without a file the YAML goes to standard output and the figures to standard error",
          "[report][calibrate]") {
  std::ostringstream out, err;
  emit_fitted_profile("name: x\n", "", kReport, out, err);
  CHECK(out.str() == "name: x\n");
  CHECK(err.str() == "the fit's figures\n");
}

TEST_CASE("calibration report: with a file the YAML is written and the figures and the path are printed",
          "[report][calibrate]") {
  const TempDir dir("calibration_report");
  const std::string path = (dir.path / "h.yaml").string();
  std::ostringstream out, err;
  emit_fitted_profile("name: x\n", path, kReport, out, err);
  CHECK(read_file(path) == "name: x\n");
  CHECK(out.str() == "the fit's figures\nwrote " + path + "\n");
  CHECK(err.str().empty());
}

TEST_CASE("calibration report: a file that cannot be written is a ConfigError and nothing is printed",
          "[report][calibrate]") {
  std::ostringstream out, err;
  try {
    emit_fitted_profile("name: x\n", "/dev/null/h.yaml", kReport, out, err);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "cannot write /dev/null/h.yaml");
  }
  CHECK(out.str().empty());
  CHECK(err.str().empty());
}

TEST_CASE("calibration report: a workload mismatch stops the fit unless forced", "[report][calibrate]") {
  SummaryWorkloadCheck check;
  check.notes = {"n1"};
  check.mismatches = {"m1"};
  std::ostringstream stopped, forced;
  CHECK_FALSE(print_summary_workload_check(check, "b.json", false, stopped));
  CHECK(stopped.str() ==
        "servesim calibrate: note: n1\n"
        "servesim calibrate: the scenario's workload is not the benchmark's: m1\n"
        "servesim calibrate: b.json holds aggregates only, so the workload is the scenario's; make it the "
        "benchmark's (or --force to fit anyway)\n");
  CHECK(print_summary_workload_check(check, "b.json", true, forced));
  CHECK(forced.str() ==
        "servesim calibrate: note: n1\n"
        "servesim calibrate: warning: the scenario's workload is not the benchmark's: m1\n");
}

TEST_CASE("calibration report: each knob that cannot be identified is a warning with its setting",
          "[report][calibrate]") {
  std::ostringstream err;
  print_unidentified_knobs({{"per_token", "hidden", "engine.async_scheduling: false"}, {"per_step", "flat", ""}},
                           "this benchmark", err);
  CHECK(err.str() ==
        "servesim calibrate: warning: per_token is not identifiable from this benchmark: hidden; it is left out of "
        "the profile\n"
        "  it would show under engine.async_scheduling: false\n"
        "servesim calibrate: warning: per_step is not identifiable from this benchmark: flat; it is left out of "
        "the profile\n");
}

TEST_CASE("calibration report: an engine profile written to a file is preceded by the benchmark line",
          "[report][calibrate]") {
  const TempDir dir("engine_profile_emit");
  const std::string path = (dir.path / "e.yaml").string();
  std::ostringstream to_stdout, figures, out, err;
  emit_engine_profile("preset: vllm\n", "", "bench line", "figures\n", to_stdout, figures);
  CHECK(to_stdout.str() == "preset: vllm\n");
  CHECK(figures.str() == "figures\n");
  emit_engine_profile("preset: vllm\n", path, "bench line", "figures\n", out, err);
  CHECK(read_file(path) == "preset: vllm\n");
  CHECK(out.str() == "bench line\nfigures\nwrote " + path + "\n");
  CHECK(err.str().empty());
}

}  // namespace calibration_report_test
