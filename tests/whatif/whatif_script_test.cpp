// scripts/whatif.py's figures for what-if 19's plot (docs/what-if.md, 19): each pool's
// adapter hit rate and the adapter loads' share of its mean TTFT, which derived() works
// out from summary.json. Needs a python3 (no matplotlib: only the figures are computed);
// skips with a message without one.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace whatif_script_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

std::string python3() {
  for (const char* py : {"/usr/bin/python3", "python3"})
    if (std::system((std::string(py) + " -c 'import json' > /dev/null 2>&1").c_str()) == 0) return py;
  return "";
}

// Runs `code` with scripts/whatif.py imported as `whatif`; its stdout, parsed as JSON.
json python_json(const std::string& python, const std::filesystem::path& script_file, const std::string& code) {
  {
    std::ofstream(script_file) << "import json, sys\nsys.path.insert(0, 'scripts')\nimport whatif\n" << code;
  }
  const std::string command = std::string("cd '") + SERVESIM_SOURCE_DIR + "' && " + python + " " + script_file.string();
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  while (fgets(buf, sizeof buf, pipe)) output += buf;
  REQUIRE(pclose(pipe) == 0);
  INFO(output);
  return json::parse(output);
}

}  // namespace

TEST_CASE("whatif.py: the LoRA load share of TTFT is the attribution's part over the mean", "[whatif][lora]") {
  const std::string python = python3();
  if (python.empty()) {
    WARN("python3 not found: whatif.py test skipped");
    return;
  }
  TempDir dir("whatif-script");
  // By hand: 1 ms of loads in a 40 ms mean TTFT is 2.5%; a pool without `lora` gets no figure.
  const json hand = python_json(python, dir.path / "hand.py",
                                "print(json.dumps(whatif.derived({'pools': {"
                                "'a': {'lora': {}, 'mean_ttft_ms': 40.0, 'ttft_attribution': {'lora_load_ms': 1.0}},"
                                "'b': {'mean_ttft_ms': 10.0, 'ttft_attribution': {'queue_ms': 10.0}}}}, '/nonexistent')))\n");
  CHECK(hand == json{{"lora_ttft_pct_a", 2.5}});

  // On the scenario: what-if 19's columns, as the plot reads them, against summary.json.
  const auto out = dir.path / "run";
  REQUIRE(run_cli("run scenarios/whatif-19-lora.yaml -q --out " + out.string()).exit_code == 0);
  const json figures = python_json(
      python, dir.path / "claim.py",
      "s = json.load(open('" + (out / "summary.json").string() + "'))\n"
      "s.update(whatif.derived(s, '/nonexistent'))\n"
      "columns = [c for c in whatif.CLAIMS if c[0] == '19'][0][4]\n"
      "print(json.dumps({title: whatif.lookup(s, path) for title, path in columns}))\n");
  const json summary = json::parse(read_file(out / "summary.json"));
  for (const int n : {1, 4, 16}) {
    const std::string pool = "max_loras_" + std::to_string(n), prefix = "max_loras " + std::to_string(n) + " ";
    INFO(pool);
    const json& p = summary["pools"][pool];
    const double hits = p["lora"]["request_hits"].get<double>(), misses = p["lora"]["request_misses"].get<double>();
    CHECK(figures[prefix + "adapter hit rate"].get<double>() == Approx(hits / (hits + misses)).epsilon(1e-12));
    CHECK(figures[prefix + "LoRA load % of TTFT"].get<double>() ==
          Approx(100.0 * p["ttft_attribution"]["lora_load_ms"].get<double>() / p["mean_ttft_ms"].get<double>())
              .epsilon(1e-12));
  }
  // Sixteen slots for sixteen adapters: each misses once, its first read from disk.
  CHECK(summary["pools"]["max_loras_16"]["lora"]["request_misses"] == 16);
}

}  // namespace whatif_script_test
