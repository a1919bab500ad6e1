// What the CLI says for the inputs a new user tried: a scenario validated from another
// folder reads the files beside it, negative seeds are usage errors, every --help exits 0,
// and a run that cannot finish is warned about before it starts.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "sim/cli/commands.h"
#include "sim/core/errors.h"
#include "scenario/scenario_fixture.h"

namespace paths_seeds_help_test {

namespace {

namespace fs = std::filesystem;
using servesim::testing::kLlama70bShape;
using servesim::testing::kLlama8bShape;
using servesim::testing::CliResult;
using servesim::testing::run_cli;
using servesim::testing::TempDir;

// The binary run from `folder`, as a user in that folder would.
CliResult run_cli_in(const fs::path& folder, const std::string& arguments) {
  const std::string command = "cd '" + folder.string() + "' && '" + SERVESIM_BINARY + "' " + arguments + " 2>&1";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) result.output += buf;
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}


std::string poisson_scenario(const std::string& rate, const std::string& stop,
                             const std::string& pool = "{model: llama-3-8b, hardware: h100-sxm}") {
  return "workload:\n  - class: chat\n    arrival: {process: poisson, rate: " + rate +
         "}\n    input: {fixed: 100}\n    output: {fixed: 10}\ncluster:\n  pools:\n    - " + pool +
         "\nstop: " + stop + "\n";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("cli paths: validate ../chat70b.yaml reads the model beside the scenario - not the working directory's",
          "[cli][paths]") {
  TempDir root("paths-cli");
  fs::create_directories(root.path / "s");
  fs::create_directories(root.path / "w");
  root.write("s/x-config.json", kLlama70bShape);
  root.write("w/x-config.json", kLlama8bShape);
  root.write("s/chat70b.yaml", poisson_scenario("4", "{requests: 100}", "{model: x-config.json, hardware: h100-sxm, tp: 4}"));
  const CliResult from_w = run_cli_in(root.path / "w", "validate ../s/chat70b.yaml");
  const CliResult from_s = run_cli_in(root.path / "s", "validate chat70b.yaml");
  INFO(from_w.output);
  CHECK(from_w.exit_code == 0);
  // Llama-3-70B in bf16 over tp 4: 70,553,706,496 parameters x 2 bytes / 4 = 32.86 GiB a GPU.
  CHECK(has(from_w.output, "weights 32.86 GiB (x-config, tp=4"));
  CHECK(has(from_w.output, "main: 1 x x-config on h100-sxm"));
  // The same lines from the scenario's own folder.
  CHECK(from_s.exit_code == 0);
  CHECK(has(from_s.output, "weights 32.86 GiB (x-config, tp=4"));
}

TEST_CASE("cli seeds: a negative --seed is a usage error in every command that takes one", "[cli][seed]") {
  for (const char* command : {"run", "sweep", "capacity", "search", "explain"}) {
    INFO(command);
    const CliResult r = run_cli(std::string(command) + " scenarios/quickstart.yaml --seed -1");
    CHECK(r.exit_code == 2);
    CHECK(has(r.output, "usage error: --seed must be a whole number >= 0, got '-1'"));
  }
  const CliResult equals = run_cli("run scenarios/quickstart.yaml --seed=-7");
  CHECK(equals.exit_code == 2);
  CHECK(has(equals.output, "--seed must be a whole number >= 0, got '-7'"));
}

TEST_CASE("cli help: every command and sub-mode prints its help and exits 0", "[cli][help]") {
  for (const char* args : {"run --help", "validate --help", "step --help", "cache-curve --help", "calibrate --help",
                           "sweep --help", "capacity --help", "search --help", "compare --help", "explain --help",
                           "replay --help", "merge --help", "report --help", "--help", "run -h",
                           // With other options, even one whose value is missing: the help wins.
                           "calibrate --from-benchmark --help", "calibrate --from-benchmark x.json --help",
                           "calibrate --from-kernels --help", "calibrate --from-kernels=h100_sxm/vllm-0.14.0 -h",
                           "step --model --help", "run scenarios/quickstart.yaml --seed --help",
                           "sweep --axis --help"}) {
    INFO(args);
    const CliResult r = run_cli(args);
    CHECK(r.exit_code == 0);
    CHECK(has(r.output, "help"));
  }
  CHECK(has(run_cli("calibrate --from-benchmark --help").output, "--from-benchmark arg"));
  CHECK(has(run_cli("calibrate --from-kernels --help").output, "--from-kernels arg"));
}

TEST_CASE("cli long runs: validate and run warn with the expected requests and wall time", "[cli][long_run]") {
  TempDir dir("long-run");
  // 1e12 req/s for 60 s: 6e13 arrivals; at 370,000 simulated requests per wall second
  // (docs/performance.md) 1.62e8 s, 5.14 years of 365.25 days.
  const fs::path rate = dir.write("rate.yaml", poisson_scenario("1e12", "{time: 60s}"));
  const CliResult r = run_cli("validate " + rate.string());
  CHECK(r.exit_code == 0);
  CHECK(has(r.output, "warning: this run simulates about 6e+13 requests (set by the arrival rates over stop.time 60 s)"));
  CHECK(has(r.output, "it would take about 5.14 years"));

  // stop.requests 2e13 at 4 req/s: 2e13 requests, 5.41e7 s = 626 days (1.71 years).
  const fs::path requests = dir.write("requests.yaml", poisson_scenario("4", "{requests: 2e13}"));
  const CliResult q = run_cli("validate " + requests.string());
  CHECK(q.exit_code == 0);
  CHECK(has(q.output, "about 2e+13 requests (set by stop.requests)"));
  CHECK(has(q.output, "about 625.6 days"));

  // 1e12 req/s capped at 1,000 requests finishes at once: no warning.
  const fs::path capped = dir.write("capped.yaml", poisson_scenario("1e12", "{requests: 1000, time: 60s}"));
  CHECK_FALSE(has(run_cli("validate " + capped.string()).output, "warning: this run simulates"));
  // 100M requests (~4.5 minutes) is long but within what a user plans: no warning.
  const fs::path big = dir.write("big.yaml", poisson_scenario("4", "{requests: 100000000}"));
  CHECK_FALSE(has(run_cli("validate " + big.string()).output, "warning: this run simulates"));

  SECTION("run warns before it starts") {
    std::ostringstream out, err;
    CHECK_THROWS_AS(servesim::cli::run_command({rate.string(), "--out", "/dev/null/x", "-q"}, out, err),
                    servesim::ConfigError);  // the unwritable --out stops it before any simulating
    CHECK(has(err.str(), "warning: this run simulates about 6e+13 requests"));
  }
}

}  // namespace paths_seeds_help_test
