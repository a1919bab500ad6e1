// `servesim run`'s SLO verdict (docs/metrics.md, "SLO verdict") through the real binary, on
// a deterministic server: one replica, one sequence at a time, a constant 10 ms step. A
// request of output 5 takes its prefill step (first token) and four decode steps, so alone
// its TTFT is 10 ms, its TPOT (50 - 10) / 4 = 10 ms and its E2E latency 50 ms: 20 req/s
// is the server's capacity.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <unistd.h>

#include "cli/cli_test_util.h"

namespace slo_verdict_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

// One class at `rate` constant arrivals per second with the given `slo:` block ("" for none).
std::string scenario(double rate, long requests, const std::string& slo) {
  return "name: verdict\n"
         "seed: 5\n"
         "stop: {requests: " + std::to_string(requests) + "}\n"
         "workload:\n"
         "  - class: chat\n"
         "    arrival: {process: constant, rate: " + std::to_string(rate) + "}\n"
         "    input: {fixed: 100}\n"
         "    output: {fixed: 5}\n" +
         (slo.empty() ? "" : "    slo: " + slo + "\n") +
         "cluster:\n"
         "  pools:\n"
         "    - name: main\n"
         "      replicas: 1\n"
         "      model: llama-3-8b\n"
         "      hardware: h100-sxm\n"
         "      engine: {policy: continuous, max_num_seqs: 1, max_batched_tokens: 100000, kv_cache_tokens: 1000000}\n"
         "      cost_model: {constant: {step: 10ms}}\n"
         "outputs: {requests_csv: false}\n";
}

struct Run {
  CliResult cli;
  json summary;
};

Run run_scenario(const TempDir& dir, const std::string& name, const std::string& yaml, const std::string& extra = "") {
  const auto file = dir.write(name + ".yaml", yaml);
  Run r;
  r.cli = run_cli("run " + file.string() + " --out " + (dir.path / name).string() + extra);
  if (r.cli.exit_code == 0) r.summary = json::parse(read_file(dir.path / name / "summary.json"));
  return r;
}

// A figure as the console's verdict writes it (4 significant digits; none of the bounds
// below is that close to its figure).
std::string duration(double ms) {
  char buffer[64];
  if (ms >= 1000) std::snprintf(buffer, sizeof buffer, "%.4g s", ms / 1000);
  else std::snprintf(buffer, sizeof buffer, "%.4g ms", ms);
  return buffer;
}

std::string figure(const json& block, const char* field) { return duration(block[field].get<double>()); }

}  // namespace

TEST_CASE("run: a light load meets a generous SLO - and the verdict reads the class's own figures", "[cli][slo]") {
  TempDir dir("slo-verdict-met");
  // 10 req/s against a 20 req/s server with arrivals 100 ms apart: no request ever waits.
  const Run r = run_scenario(dir, "light", scenario(10, 50, "{ttft: 1s, tpot: {p99: 20ms}, e2el: {mean: 60ms}}"));
  INFO(r.cli.output);
  REQUIRE(r.cli.exit_code == 0);
  const json& chat = r.summary["classes"]["chat"];
  const json& v = chat["slo_verdict"];
  REQUIRE(v.size() == 3);
  CHECK(v["ttft_p99"]["field"] == "p99_ttft_ms");
  CHECK(v["ttft_p99"]["target_ms"].get<double>() == 1000);
  CHECK(v["ttft_p99"]["value_ms"].get<double>() == Approx(10).epsilon(0.01));
  CHECK(v["ttft_p99"]["value_ms"] == chat["p99_ttft_ms"]);
  CHECK(v["ttft_p99"]["met"] == true);
  CHECK(v["tpot_p99"]["value_ms"].get<double>() == Approx(10).epsilon(0.01));
  CHECK(v["tpot_p99"]["value_ms"] == chat["p99_tpot_ms"]);
  CHECK(v["tpot_p99"]["met"] == true);
  CHECK(v["e2el_mean"]["field"] == "mean_e2el_ms");
  CHECK(v["e2el_mean"]["value_ms"].get<double>() == Approx(50).epsilon(0.001));
  CHECK(v["e2el_mean"]["met"] == true);
  CHECK(r.summary["slo_verdict"]["met"] == true);
  CHECK(r.summary["slo_verdict"]["missed"] == json::array());
  // The verdict after the goodput line, and the SLO's statistic TPOT p99 in the table.
  const std::string line = "SLO: met (ttft p99 " + figure(chat, "p99_ttft_ms") + " <= 1 s, tpot p99 " +
                           figure(chat, "p99_tpot_ms") + " <= 20 ms, e2el mean " + figure(chat, "mean_e2el_ms") +
                           " <= 60 ms)";
  CHECK(r.cli.output.find(line) != std::string::npos);
  CHECK(r.cli.output.find("TPOT p99") != std::string::npos);
  CHECK(r.cli.output.find("E2E mean") != std::string::npos);
}

TEST_CASE("run: an overloaded server misses - and the verdict's value is the summary's statistic", "[cli][slo]") {
  TempDir dir("slo-verdict-missed");
  // 40 req/s against 20: the queue grows by one request every 50 ms, so the last of 400
  // waits about 400 x (50 - 25) ms = 10 s, far over a TTFT p99 of 1 s. TPOT stays 10 ms:
  // one sequence at a time, nothing shares its decode steps.
  const Run r = run_scenario(dir, "heavy", scenario(40, 400, "{ttft: 1s, tpot: 20ms}"));
  INFO(r.cli.output);
  REQUIRE(r.cli.exit_code == 0);
  const json& chat = r.summary["classes"]["chat"];
  const json& v = chat["slo_verdict"];
  CHECK(v["ttft_p99"]["met"] == false);
  CHECK(v["ttft_p99"]["value_ms"] == chat["p99_ttft_ms"]);
  CHECK(v["ttft_p99"]["value_ms"].get<double>() > 8000);
  CHECK(v["tpot_p99"]["met"] == true);
  CHECK(r.summary["slo_verdict"]["met"] == false);
  CHECK(r.summary["slo_verdict"]["missed"] == json::array({"chat.ttft_p99"}));
  const std::string line = "SLO: missed: ttft p99 " + figure(chat, "p99_ttft_ms") + " > 1 s (met: tpot p99 " +
                           figure(chat, "p99_tpot_ms") + " <= 20 ms)";
  CHECK(r.cli.output.find(line) != std::string::npos);
}

TEST_CASE("run: the verdict is per class - and the run's names the class that missed", "[cli][slo]") {
  TempDir dir("slo-verdict-classes");
  std::string yaml = scenario(5, 60, "{ttft: 1s}");
  // A second class whose 5 ms TTFT no 10 ms step can meet.
  const std::string second = "  - class: strict\n"
                             "    arrival: {process: constant, rate: 5}\n"
                             "    input: {fixed: 100}\n"
                             "    output: {fixed: 5}\n"
                             "    slo: {ttft: 5ms}\n";
  yaml.insert(yaml.find("cluster:"), second);
  const Run r = run_scenario(dir, "classes", yaml);
  INFO(r.cli.output);
  REQUIRE(r.cli.exit_code == 0);
  CHECK(r.summary["classes"]["chat"]["slo_verdict"]["ttft_p99"]["met"] == true);
  CHECK(r.summary["classes"]["strict"]["slo_verdict"]["ttft_p99"]["met"] == false);
  CHECK(r.summary["slo_verdict"]["missed"] == json::array({"strict.ttft_p99"}));
  CHECK(r.summary["pools"]["main"].count("slo_verdict") == 0);
  CHECK(r.cli.output.find("  chat: met (ttft p99 ") != std::string::npos);
  CHECK(r.cli.output.find("  strict: missed: ttft p99 ") != std::string::npos);
  CHECK(r.cli.output.find("SLO: missed: strict ttft p99 ") != std::string::npos);
}

TEST_CASE("run: --goodput's bounds are judged too - a run without SLOs has no verdict", "[cli][slo]") {
  TempDir dir("slo-verdict-none");
  const Run none = run_scenario(dir, "none", scenario(10, 20, ""));
  INFO(none.cli.output);
  REQUIRE(none.cli.exit_code == 0);
  CHECK(none.summary.count("slo_verdict") == 0);
  CHECK(none.summary["classes"]["chat"].count("slo_verdict") == 0);
  CHECK(none.cli.output.find("SLO:") == std::string::npos);
  CHECK(none.cli.output.find("TPOT p99") == std::string::npos);

  // vLLM's spelling, stated for the p99: TTFT 10 ms > 5 ms.
  const Run vllm = run_scenario(dir, "vllm", scenario(10, 20, ""), " --goodput ttft:5 tpot:50");
  INFO(vllm.cli.output);
  REQUIRE(vllm.cli.exit_code == 0);
  CHECK(vllm.summary["slo_verdict"]["missed"] == json::array({"chat.ttft_p99"}));
  const json& chat = vllm.summary["classes"]["chat"];
  CHECK(chat["p99_ttft_ms"].get<double>() == Approx(10).epsilon(0.01));
  CHECK(vllm.cli.output.find("SLO: missed: ttft p99 " + figure(chat, "p99_ttft_ms") + " > 5 ms (met: tpot p99 " +
                             figure(chat, "p99_tpot_ms") + " <= 50 ms)") != std::string::npos);

  const auto typo = run_cli("run " + (dir.path / "none.yaml").string() + " --out " + (dir.path / "typo").string() +
                            " --goodput ttf:5");
  CHECK(typo.exit_code == 2);
  CHECK(typo.output.find("did you mean 'ttft'?") != std::string::npos);
}

}  // namespace slo_verdict_test
