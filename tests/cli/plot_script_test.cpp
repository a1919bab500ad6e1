// scripts/plot.py on a small run and sweep: every PNG it promises is written and is a PNG.
// Skips (with a message) where python3 with matplotlib is not installed.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "cli/cli_test_util.h"

namespace plot_script_test {

using namespace servesim::testing;

namespace {

// Debian's python3-matplotlib lives under /usr/bin/python3; a python3 earlier on PATH
// (pyenv, a venv) may lack it.
std::string python_with_matplotlib() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    const std::string probe = std::string(py) + " -c 'import matplotlib' > /dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return py;
  }
  return "";
}

CliResult plot(const std::string& python, const std::string& args) {
  const std::string command =
      std::string("cd '") + SERVESIM_SOURCE_DIR + "' && " + python + " scripts/plot.py " + args + " 2>&1";
  CliResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) r.output += buf;
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool is_png(const std::filesystem::path& p) {
  const std::string bytes = read_file(p);
  return bytes.size() > 1000 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

const char* kTwoClasses = R"(name: plot
seed: 9
stop: {requests: 120}
workload:
  - class: chat
    arrival: {process: poisson, rate: 15}
    input: {lognormal: {median: 600, sigma: 0.5}}
    output: {uniform: [10, 80]}
  - class: batch
    arrival: {process: poisson, rate: 5}
    input: {fixed: 2000}
    output: {fixed: 20}
cluster:
  pools:
    - name: main
      replicas: 2
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 32, max_batched_tokens: 2048}
outputs: {timeseries: true, timeseries_interval: 500ms}
)";

}  // namespace

TEST_CASE("plot.py turns a run and a sweep into CDF and timeline and trade-off PNGs", "[cli][plot]") {
  const std::string python = python_with_matplotlib();
  if (python.empty()) {
    WARN("python3 with matplotlib not found (apt-get install python3-matplotlib): plot.py test skipped");
    return;
  }
  TempDir dir("plot");
  const auto scenario = dir.write("plot.yaml", kTwoClasses);
  REQUIRE(run_cli("run " + scenario.string() + " -q --out " + (dir.path / "run").string()).exit_code == 0);
  REQUIRE(run_cli("sweep " + scenario.string() + " -q --jobs 2 --axis cluster.pools.0.engine.max_num_seqs=4,16,64" +
                  " --out " + (dir.path / "sweep").string())
              .exit_code == 0);
  const auto r = plot(python, (dir.path / "run").string() + " --sweep " + (dir.path / "sweep").string() + " --out " +
                                  (dir.path / "png").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* png : {"ttft_cdf.png", "itl_cdf.png", "attribution.png", "timeline.png", "sweep_tradeoff.png"}) {
    INFO(png);
    CHECK(is_png(dir.path / "png" / png));
    CHECK(r.output.find(png) != std::string::npos);
  }
  // Bad input is exit 2 with the path.
  const auto bad = plot(python, (dir.path / "nowhere").string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("nowhere") != std::string::npos);
}

TEST_CASE("plot.py draws a two-axis sweep as one series per second-axis value with log axes past 100x",
          "[cli][plot]") {
  const std::string python = python_with_matplotlib();
  if (python.empty()) {
    WARN("python3 with matplotlib not found (apt-get install python3-matplotlib): plot.py test skipped");
    return;
  }
  TempDir dir("plot-axes");
  // p99 TTFT runs from 97 ms (the trace as recorded) to 12.2 s (64x faster with 32 sequences),
  // 126x: a log axis; p99 ITL stays within 25-183 ms: linear.
  REQUIRE(run_cli("sweep scenarios/quickstart.yaml -q --set stop.requests=200 --axis workload.0.trace.speedup=1,16,64"
                  " --axis cluster.pools.0.engine.max_num_seqs=32,256 --out " + (dir.path / "sweep").string())
              .exit_code == 0);
  const auto r = plot(python, "--sweep " + (dir.path / "sweep").string() + " --out " + (dir.path / "png").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("2 series (cluster.pools.0.engine.max_num_seqs=32; cluster.pools.0.engine.max_num_seqs=256)") !=
        std::string::npos);
  CHECK(r.output.find("p99 TTFT log, p99 ITL linear") != std::string::npos);
  CHECK(is_png(dir.path / "png" / "sweep_tradeoff.png"));
}

}  // namespace plot_script_test
