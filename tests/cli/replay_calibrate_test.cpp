// servesim replay and calibrate --from-benchmark, judged on runs whose truth is known: a
// simulated run written in a benchmark tool's schema must replay to its own figures, and
// overheads put into a run must come back out of calibration.
#include <cmath>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/benchmark_replay.h"
#include "sim/study/overhead_calibration.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace replay_calibrate_test {

using namespace servesim;
using servesim::testing::run_cli;
using servesim::testing::TempDir;

namespace {

// A moderately loaded 8B deployment whose engine pays known CPU overheads on every step
// and for every new request, with async scheduling off so that they show.
std::string write_known_scenario(const TempDir& dir, int requests) {
  const std::string path = (dir.path / "known.yaml").string();
  std::ofstream(path) << "name: known-overheads\nseed: 3\nstop: {requests: " << requests << "}\n"
                      << "workload:\n  - class: chat\n    arrival: {process: poisson, rate: 8}\n"
                         "    input: {uniform: [100, 2000]}\n    output: {uniform: [20, 400]}\n"
                         "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n"
                         "      hardware: h100-sxm\n      engine:\n        preset: vllm\n"
                         "        async_scheduling: false\n        overheads: {per_step: 2ms, per_request: 5ms}\n";
  return path;
}

// Runs `scenario` and writes its requests as vllm bench serve's file; returns the file.
std::string write_vllm_bench(const TempDir& dir, const std::string& scenario) {
  const std::string out = (dir.path / "run").string();
  REQUIRE(run_cli("run " + scenario + " --bench-format vllm --out " + out).exit_code == 0);
  return out + "/vllm_bench.json";
}

// ITL percentiles are left out: servesim keeps no per-token times, so the files it writes
// spread each request's decode time evenly over its gaps (benchmark_writer.h).
bool reproducible(const std::string& figure) {
  return figure.rfind("itl_", 0) != 0 || figure == "itl_mean_ms";
}

}  // namespace

TEST_CASE("A run written as each benchmark tool writes it replays to its own figures within 1 percent",
          "[cli][replay]") {
  const TempDir dir("replay_self");
  const std::string scenario = write_known_scenario(dir, 400);
  for (const std::string format : {"vllm", "inference-perf", "guidellm"}) {
    DYNAMIC_SECTION(format) {
      const std::string out = (dir.path / format).string();
      const auto run = run_cli("run " + scenario + " --bench-format " + format + " --out " + out);
      REQUIRE(run.exit_code == 0);
      std::string written;
      for (const auto& entry : std::filesystem::directory_iterator(out)) {
        const std::string name = entry.path().filename().string();
        if (name != "summary.json" && name != "requests.csv") written = entry.path().string();
      }
      REQUIRE_FALSE(written.empty());
      const auto replay = run_cli("replay " + written + " --scenario " + scenario + " --json --tolerance 1%");
      INFO(replay.output);
      const auto j = nlohmann::json::parse(replay.output.substr(0, replay.output.rfind('}') + 1));
      CHECK(j["benchmark"]["replayed"] == 400);
      CHECK(j["benchmark"]["failed"] == 0);
      int compared = 0;
      for (const auto& row : j["sets"][0]["figures"]) {
        if (!reproducible(row["figure"])) continue;
        ++compared;
        INFO(row["figure"]);
        CHECK(std::fabs(row["error"].get<double>()) <= 0.01);
      }
      CHECK(compared >= 12);  // ttft, tpot, e2el x 4 at least
    }
  }
}

TEST_CASE("calibrate --from-benchmark recovers known per-step and per-request overheads and then replays within 3 percent",
          "[cli][replay][calibrate]") {
  const TempDir dir("calibrate_known");
  const std::string scenario = write_known_scenario(dir, 800);
  const std::string bench = write_vllm_bench(dir, scenario);
  const std::vector<std::string> unmodified = {"cluster.pools.0.engine.overheads.per_step=0ms",
                                               "cluster.pools.0.engine.overheads.per_request=0ms"};

  const BenchmarkReplay replay(load_scenario(scenario, unmodified), read_benchmark(bench));
  OverheadCalibrationOptions options;
  const OverheadCalibration fit = calibrate_overheads(replay, options);
  CHECK(fit.fitted.per_step_ns == Approx(2e6).epsilon(0.15));
  CHECK(fit.fitted.per_request_ns == Approx(5e6).epsilon(0.15));
  CHECK(fit.objective_after < fit.objective_before / 100);
  for (const ReplaySet* set : {&fit.fit_after, &fit.held_out_after}) {
    for (const FigureComparison& row : set->rows) {
      if (row.figure.find("_mean_") == std::string::npos) continue;
      INFO(set->name << " " << row.figure);
      CHECK(std::fabs(row.error) <= 0.03);
    }
  }
}

TEST_CASE("A replay reads its benchmark file once and simulates it again after the file is gone",
          "[cli][replay][calibrate]") {
  // A fit simulates the same benchmark hundreds of times: reading its JSON each time cost
  // ten times the simulations.
  const TempDir dir("replay_read_once");
  const std::string scenario = write_known_scenario(dir, 60);
  const std::string bench = write_vllm_bench(dir, scenario);
  const BenchmarkReplay replay(load_scenario(scenario, {}), read_benchmark(bench));
  const SimulatedReplay first = replay.simulate();
  REQUIRE(std::filesystem::remove(bench));
  const SimulatedReplay again = replay.simulate();  // reading the file would throw: it is gone
  CHECK(first.completed == 60);
  CHECK(again.completed == first.completed);
  CHECK(again.arrival_ns == first.arrival_ns);
  CHECK(again.finish_ns == first.finish_ns);
}

TEST_CASE("calibrate --from-benchmark writes a profile that a scenario loads as its engine preset",
          "[cli][replay][calibrate]") {
  const TempDir dir("calibrate_profile");
  const std::string scenario = write_known_scenario(dir, 800);
  const std::string bench = write_vllm_bench(dir, scenario);
  const std::string profile = (dir.path / "engine.yaml").string();
  const auto cli = run_cli("calibrate --from-benchmark " + bench + " --scenario " + scenario +
                           " --set cluster.pools.0.engine.overheads.per_step=0ms"
                           " --set cluster.pools.0.engine.overheads.per_request=0ms --max-replays 60 -o " + profile);
  INFO(cli.output);
  REQUIRE(cli.exit_code == 0);
  CHECK(cli.output.find("held out") != std::string::npos);
  const Scenario with_profile = load_scenario(scenario, {"cluster.pools.0.engine.preset=" + profile,
                                                         "cluster.pools.0.engine.overheads.per_step=0ms"});
  const EngineConfig& engine = with_profile.cluster.pools.front().engine;
  CHECK(engine.preset == "vllm");
  CHECK(engine.overheads.per_request_ns > 1'000'000);  // the profile's fitted value, not the scenario's 0
}

TEST_CASE("replay refuses bad input with exit 2 and judges the tolerance with exit 1", "[cli][replay]") {
  const TempDir dir("replay_errors");
  const std::string scenario = write_known_scenario(dir, 60);
  CHECK(run_cli("replay tests/data/benchmarks/absent.json --scenario " + scenario).exit_code == 2);
  CHECK(run_cli("replay tests/data/benchmarks/vllm_bench_detailed.json").exit_code == 2);  // no scenario
  const auto wrong = run_cli("replay scenarios/quickstart.yaml --scenario " + scenario);
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.output.find("quickstart.yaml") != std::string::npos);
  const std::string out = (dir.path / "run").string();
  REQUIRE(run_cli("run " + scenario + " --bench-format vllm --out " + out).exit_code == 0);
  // The same deployment with 5 ms more per step cannot be within 1%.
  const auto slower = run_cli("replay " + out + "/vllm_bench.json --scenario " + scenario +
                              " --set cluster.pools.0.engine.overheads.per_step=7ms --tolerance 1%");
  INFO(slower.output);
  CHECK(slower.exit_code == 1);
  CHECK(slower.output.find("beyond the tolerance") != std::string::npos);
}

namespace {

// A vllm bench serve file of six 500-token prompts with 40 output tokens each; `extra` adds
// top-level keys (the model, --metadata).
std::string bench_file(const TempDir& dir, const std::string& name, const std::string& extra) {
  const std::string path = (dir.path / name).string();
  std::ofstream(path) << "{" << extra << ", \"request_rate\": \"inf\", \"burstiness\": 1.0,\n"
                      << "\"max_concurrency\": 2, \"duration\": 2.0, \"completed\": 6, \"failed\": 0,\n"
                      << "\"input_lens\": [500, 500, 500, 500, 500, 500],\n"
                      << "\"output_lens\": [40, 40, 40, 40, 40, 40],\n"
                      << "\"ttfts\": [0.1, 0.1, 0.1, 0.1, 0.1, 0.1],\n"
                      << "\"itls\": [[0.01], [0.01], [0.01], [0.01], [0.01], [0.01]],\n"
                      << "\"errors\": [\"\", \"\", \"\", \"\", \"\", \"\"]}\n";
  return path;
}

// An 8B deployment with a synthetic workload and no stop: replay replaces the workload.
std::string write_deployment(const TempDir& dir) {
  const std::string path = (dir.path / "deployment.yaml").string();
  std::ofstream(path) << "name: deployment\nseed: 3\n"
                      << "workload:\n  - class: chat\n    arrival: {process: poisson, rate: 8}\n"
                         "    input: {uniform: [100, 2000]}\n    output: {uniform: [20, 400]}\n"
                         "cluster:\n  pools:\n    - name: main\n      model: llama-3-8b\n      hardware: h100-sxm\n";
  return path;
}

}  // namespace

TEST_CASE("replay and calibrate refuse a benchmark of another model or parallelism naming both and go on with --force",
          "[cli][replay]") {
  const TempDir dir("replay_match");
  const std::string scenario = write_deployment(dir);
  const std::string seventy = bench_file(dir, "seventy.json",
                                         "\"backend\": \"openai\", \"model_id\": \"meta-llama/Llama-3.1-70B-Instruct\"");
  const auto refused = run_cli("replay " + seventy + " --scenario " + scenario);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("model_id: the benchmark's model is meta-llama/Llama-3.1-70B-Instruct, pool main's "
                            "model is llama-3-8b (the names state 70B and 8B parameters)") != std::string::npos);
  CHECK(refused.output.find("--force") != std::string::npos);
  const auto forced = run_cli("replay " + seventy + " --scenario " + scenario + " --force");
  CHECK(forced.exit_code == 0);
  CHECK(forced.output.find("warning: " + seventy + ": model_id:") != std::string::npos);
  CHECK(forced.output.find("all (6 requests)") != std::string::npos);
  const auto calibrate = run_cli("calibrate --from-benchmark " + seventy + " --scenario " + scenario);
  CHECK(calibrate.exit_code == 2);
  CHECK(calibrate.output.find("70B and 8B") != std::string::npos);

  // The same model under its Hugging Face name replays without a word, and the scenario
  // needs no stop: the file's six requests are the workload.
  const std::string eight =
      bench_file(dir, "eight.json", "\"backend\": \"vllm\", \"model_id\": \"meta-llama/Meta-Llama-3-8B-Instruct\"");
  const auto same = run_cli("replay " + eight + " --scenario " + scenario);
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(same.output.find("warning") == std::string::npos);
  CHECK(same.output.find("simulated: 6 completed") != std::string::npos);

  // --metadata tp=2 and --backend sglang against one GPU running the default (vLLM) engine.
  const std::string tp2 = bench_file(dir, "tp2.json",
                                     "\"backend\": \"sglang\", \"model_id\": \"meta-llama/Meta-Llama-3-8B-Instruct\", "
                                     "\"tp\": \"2\"");
  const auto parallel = run_cli("replay " + tp2 + " --scenario " + scenario);
  CHECK(parallel.exit_code == 2);
  CHECK(parallel.output.find("tp: the benchmark ran tensor parallel 2, pool main has tp 1") != std::string::npos);
  CHECK(parallel.output.find("backend: the benchmark was served by sglang") != std::string::npos);
  CHECK(run_cli("replay " + tp2 + " --scenario " + scenario + " --set cluster.pools.0.tp=2"
                " --set cluster.pools.0.engine.preset=sglang").exit_code == 0);

  // A name that matches neither way (another Llama of the same size) is a warning, not a refusal.
  const std::string other = bench_file(dir, "other.json", "\"model_id\": \"meta-llama/Llama-3.1-8B-Instruct\"");
  const auto unsure = run_cli("replay " + other + " --scenario " + scenario);
  CHECK(unsure.exit_code == 0);
  CHECK(unsure.output.find("warning: " + other + ": model_id:") != std::string::npos);
}

TEST_CASE("calibrate --from-benchmark says a knob async scheduling hides is not identifiable and names the setting",
          "[cli][replay][calibrate]") {
  const TempDir dir("calibrate_hidden");
  const std::string scenario = write_known_scenario(dir, 300);
  const std::string out = (dir.path / "run").string();
  REQUIRE(run_cli("run " + scenario + " --bench-format vllm --quiet --out " + out).exit_code == 0);
  // The vllm preset's async scheduling hides a step's CPU work under its GPU work (an 8B
  // step on an H100 takes several ms), so neither knob moves a figure within 1 ms of 0.
  const std::string profile = (dir.path / "engine.yaml").string();
  const auto hidden = run_cli("calibrate --from-benchmark " + out + "/vllm_bench.json --scenario " + scenario +
                              " --set cluster.pools.0.engine.async_scheduling=auto"
                              " --set cluster.pools.0.engine.overheads.per_step=0ms"
                              " --set cluster.pools.0.engine.overheads.per_request=0ms --max-replays 40 -o " + profile);
  INFO(hidden.output);
  CHECK(hidden.exit_code == 1);
  CHECK(hidden.output.find("per_step is not identifiable from this benchmark: pool main's engine runs async "
                           "scheduling") != std::string::npos);
  CHECK(hidden.output.find("engine.async_scheduling: false (--set cluster.pools.0.engine.async_scheduling=false)") !=
        std::string::npos);
  CHECK(hidden.output.find("per_step     0.0us  ->  not identifiable") != std::string::npos);
  CHECK(hidden.output.find("nothing written") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(profile));
}

TEST_CASE("replay --format with no name lists the benchmark formats and exits 0", "[cli][replay]") {
  for (const std::string command : {"replay --format", "replay run.json --format --scenario s.yaml",
                                    "calibrate --from-benchmark run.json --format"}) {
    INFO(command);
    const auto listed = run_cli(command);
    CHECK(listed.exit_code == 0);
    CHECK(listed.output.find("vllm-bench       vllm bench serve --save-result --save-detailed") != std::string::npos);
    CHECK(listed.output.find("inference-perf") != std::string::npos);
    CHECK(listed.output.find("guidellm") != std::string::npos);
  }
  // A name it does not know is still bad input.
  const auto unknown = run_cli("replay tests/data/benchmarks/vllm_bench_detailed.json --format vllm --scenario "
                               "scenarios/quickstart.yaml");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("unknown benchmark format 'vllm' (valid: auto, vllm-bench, inference-perf, guidellm)") !=
        std::string::npos);
}

}  // namespace replay_calibrate_test
