// scripts/profile_gpu.py without a GPU: it answers --help and plans its rows without
// PyTorch, and its CSV writer round-trips the shared H200 measurements into a file the
// C++ reader (and so `servesim calibrate`) reads back row for row.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "cli/cli_test_util.h"
#include "sim/scenario/measurements_csv.h"

namespace profile_gpu_script_test {

using namespace servesim;

namespace {

bool have_python() { return std::system("python3 -c 'import csv' > /dev/null 2>&1") == 0; }

testing::CliResult python(const std::string& args) {
  // run_cli runs the servesim binary; this runs the script the same way.
  const std::string command = std::string("cd '") + SERVESIM_SOURCE_DIR + "' && python3 scripts/profile_gpu.py " + args + " 2>&1";
  testing::CliResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) r.output += buf;
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("profile_gpu.py: --help and --dry-run work without PyTorch", "[fidelity]") {
  if (!have_python()) {
    WARN("python3 not found: skipped");
    return;
  }
  const auto help = python("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("--check-csv") != std::string::npos);
  const auto plan = python("--model llama-3-8b --dry-run");
  INFO(plan.output);
  CHECK(plan.exit_code == 0);
  // 3 ceilings + 4 GEMM shapes x 10 row counts + 8 prefills + 21 decodes + 4 + 6 attention.
  CHECK(plan.output.find("80 rows for llama-3-8b") != std::string::npos);
  CHECK(plan.output.find("gemm,,,,,,4096,4096,6144") != std::string::npos);       // QKV
  CHECK(plan.output.find("gemm,,,,,,1,14336,4096") != std::string::npos);         // down
  const auto missing = python("--model no-such-model --dry-run");
  CHECK(missing.exit_code != 0);
  CHECK(missing.output.find("no model 'no-such-model'") != std::string::npos);
}

TEST_CASE("profile_gpu.py: its CSV writer round-trips the H200 measurements for the C++ reader", "[fidelity]") {
  if (!have_python()) {
    WARN("python3 not found: skipped");
    return;
  }
  testing::TempDir dir("profile-gpu");
  const std::string out = (dir.path / "rt.csv").string();
  const auto r = python("--check-csv data/measurements/h200_llama3_8b_steps.csv --out " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("read 76 rows") != std::string::npos);
  const auto a = read_measurements(std::string(SERVESIM_SOURCE_DIR) + "/data/measurements/h200_llama3_8b_steps.csv");
  const auto b = read_measurements(out);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("row " << i + 2);
    CHECK(a[i].kind_name == b[i].kind_name);
    CHECK(a[i].model == b[i].model);
    CHECK(a[i].prefill_tokens == b[i].prefill_tokens);
    CHECK(a[i].past_tokens == b[i].past_tokens);
    CHECK(a[i].decode_batch == b[i].decode_batch);
    CHECK(a[i].decode_context == b[i].decode_context);
    CHECK(a[i].gemm_m == b[i].gemm_m);
    CHECK(a[i].gemm_k == b[i].gemm_k);
    CHECK(a[i].gemm_n == b[i].gemm_n);
    CHECK(a[i].ms == b[i].ms);
  }
  // And calibrate accepts the rewritten file.
  const auto cal = testing::run_cli("calibrate --hardware h200 --model llama-3-8b --measurements " + out +
                                    " -o " + (dir.path / "h.yaml").string());
  CHECK(cal.exit_code == 0);
  CHECK(cal.output.find("whole steps fitted: 23 rows") != std::string::npos);
}

}  // namespace profile_gpu_script_test
