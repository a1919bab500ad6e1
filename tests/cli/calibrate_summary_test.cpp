// calibrate --from-benchmark on a benchmark's aggregate results only, judged on runs whose
// truth is known: servesim writes a run as vllm bench serve, inference-perf and GuideLLM
// would, the per-request entries are taken out, and the overheads put into the run must
// come back out of its means and percentiles.
#include <cmath>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/summary_calibration.h"
#include "sim/workload/benchmark/benchmark_summary.h"

namespace calibrate_summary_test {

using namespace servesim;
using servesim::testing::run_cli;
using servesim::testing::TempDir;

namespace {

// An 8B deployment paying 300 us per step and 2 ms per new request, with async scheduling
// off so that they show.
std::string write_scenario(const TempDir& dir, int requests, double rate) {
  const std::string path = (dir.path / "known.yaml").string();
  std::ofstream(path) << "name: known-overheads\nseed: 3\nstop: {requests: " << requests << "}\n"
                      << "workload:\n  - class: chat\n    arrival: {process: poisson, rate: " << rate << "}\n"
                      << "    input: {uniform: [100, 2000]}\n    output: {uniform: [20, 400]}\n"
                         "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n"
                         "      hardware: h100-sxm\n      engine:\n        preset: vllm\n"
                         "        async_scheduling: false\n        overheads: {per_step: 300us, per_request: 2ms}\n";
  return path;
}

const std::vector<std::string> kZeroOverheads = {"cluster.pools.0.engine.overheads.per_step=0ms",
                                                 "cluster.pools.0.engine.overheads.per_request=0ms"};
const std::string kZeroSets =
    " --set cluster.pools.0.engine.overheads.per_step=0ms --set cluster.pools.0.engine.overheads.per_request=0ms";

nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(servesim::testing::read_file(path));
}

void write_json(const std::string& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(1); }

// The vllm bench serve result of a run of `scenario`, without the --save-detailed arrays.
// A scenario whose pool has known overheads (300 us per step, 2 ms per request) in a folder
// of its own, and the same scenario loaded without them: what each calibration starts from.
struct KnownOverheads {
  TempDir dir{"summary_known"};
  std::string scenario = write_scenario(dir, 800, 8);
  Scenario unmodified = load_scenario(scenario, kZeroOverheads);
};

std::string vllm_summary(const TempDir& dir, const std::string& scenario, const std::string& sets = "") {
  const std::string out = (dir.path / "vllm_run").string();
  REQUIRE(run_cli("run " + scenario + sets + " --bench-format vllm --quiet --out " + out).exit_code == 0);
  nlohmann::json j = read_json(out + "/vllm_bench.json");
  for (const char* key : {"input_lens", "output_lens", "ttfts", "itls", "errors", "latencies", "start_times",
                          "generated_texts"}) {
    j.erase(key);
  }
  const std::string path = (dir.path / "vllm_summary.json").string();
  write_json(path, j);
  return path;
}

}  // namespace

TEST_CASE("A vllm bench serve result without per-request arrays is read for its settings and figures",
          "[calibrate][summary]") {
  const TempDir dir("summary_vllm_keys");
  // The keys vllm/benchmarks/serve.py writes without --save-detailed (default percentile
  // metrics ttft,tpot,itl and --metric-percentiles 90,99.9).
  const auto path = dir.write("bench.json", R"({"date": "20250101-000000", "endpoint_type": "vllm", "backend": "vllm",
    "model_id": "meta-llama/Meta-Llama-3-8B-Instruct", "tokenizer_id": "meta-llama/Meta-Llama-3-8B-Instruct",
    "num_prompts": 200, "request_rate": 4.0, "burstiness": 0.5, "max_concurrency": null,
    "duration": 52.5, "completed": 160, "failed": 40, "total_input_tokens": 80000, "total_output_tokens": 20000,
    "request_throughput": 3.05, "mean_ttft_ms": 41.5, "median_ttft_ms": 38.25, "std_ttft_ms": 9.0,
    "p90_ttft_ms": 55.0, "p99.9_ttft_ms": 90.0, "mean_tpot_ms": 11.0, "median_tpot_ms": 10.5, "std_tpot_ms": 1.0,
    "p90_tpot_ms": 12.5, "p99.9_tpot_ms": 15.0, "mean_itl_ms": 10.75, "median_itl_ms": 10.0, "std_itl_ms": 2.0,
    "p90_itl_ms": 13.0, "p99.9_itl_ms": 20.0})");
  REQUIRE(is_benchmark_summary(path.string()));
  CHECK_FALSE(is_benchmark_summary("tests/data/benchmarks/vllm_bench_detailed.json"));
  const BenchmarkSummary s = read_benchmark_summary(path.string());
  CHECK(s.format == "vllm-bench");
  CHECK(s.deployment.model == "meta-llama/Meta-Llama-3-8B-Instruct");
  REQUIRE(s.stages.size() == 1);
  const SummaryStage& stage = s.stages[0];
  CHECK(stage.requests == 200);
  CHECK(stage.completed == 160);
  CHECK(stage.rate_per_s == 4.0);
  CHECK(stage.burstiness == 0.5);
  CHECK_FALSE(stage.concurrency);
  CHECK(*stage.mean_input_tokens == Approx(500.0));   // 80000 / 160
  CHECK(*stage.mean_output_tokens == Approx(125.0));  // 20000 / 160
  // mean, median, p90 of ttft, tpot, itl; std and p99.9 are not read.
  REQUIRE(stage.figures.size() == 9);
  CHECK(stage.figures[1].name() == "ttft_p50_ms");
  CHECK(stage.figures[1].measured_ms == 38.25);
  CHECK(stage.figures[1].key == "median_ttft_ms");
  CHECK(stage.figures[5].name() == "tpot_p90_ms");
  CHECK(stage.figures[5].measured_ms == 12.5);
  CHECK(stage.figures[6].name() == "itl_mean_ms");
  CHECK(is_fitted_summary_figure(stage.figures[6]));
  CHECK_FALSE(is_fitted_summary_figure(stage.figures[8]));  // itl_p90: gaps' percentiles are not fitted
}

TEST_CASE("Each tool's figures of a run computed from its simulated requests are the ones the tool's writer gave",
          "[calibrate][summary]") {
  // At the scenario's own overheads the simulation is the run that wrote the file, so every
  // figure (percentiles beyond the fitted ones included) must come out as the writer put it.
  const TempDir dir("summary_self");
  const std::string scenario = write_scenario(dir, 300, 8);
  const std::string out = (dir.path / "run").string();
  for (const std::string format : {"vllm", "inference-perf", "guidellm"}) {
    DYNAMIC_SECTION(format) {
      REQUIRE(run_cli("run " + scenario + " --bench-format " + format + " --quiet --out " + out).exit_code == 0);
      std::string path;
      if (format == "vllm") {
        nlohmann::json j = read_json(out + "/vllm_bench.json");
        for (const char* key : {"input_lens", "output_lens", "ttfts", "itls", "errors"}) j.erase(key);
        path = out + "/summary.json";
        write_json(path, j);
      } else if (format == "inference-perf") {
        std::filesystem::remove(out + "/per_request_lifecycle_metrics.json");
        path = out + "/stage_0_lifecycle_metrics.json";
      } else {
        CHECK_FALSE(is_benchmark_summary(out + "/guidellm.json"));  // every request listed: replayable
        nlohmann::json j = read_json(out + "/guidellm.json");
        // A report that kept a sample of its requests (sample_requests) is aggregates too.
        nlohmann::json sampled = j;
        auto& successful = sampled["benchmarks"][0]["requests"]["successful"];
        successful.erase(successful.begin() + 10, successful.end());
        write_json(out + "/sampled.json", sampled);
        CHECK(is_benchmark_summary(out + "/sampled.json"));
        j["benchmarks"][0].erase("requests");
        path = out + "/summary.json";
        write_json(path, j);
      }
      const BenchmarkSummary s = read_benchmark_summary(path);
      const Scenario sc = load_scenario(scenario);
      CHECK(check_summary_workload(s, sc).mismatches.empty());
      const SummaryStageResult r = simulate_summary_stage(sc, s, 0, std::nullopt);
      CHECK(r.simulated_completed == 300);
      CHECK(r.rows.size() >= 16);  // ttft, tpot, itl, e2el x mean, p50, p90, p95 / p99
      for (const SummaryRow& row : r.rows) {
        INFO(row.figure << " measured " << row.measured_ms << " simulated " << row.simulated_ms);
        CHECK(std::fabs(row.error) < 1e-6);
      }
    }
  }
}

TEST_CASE_METHOD(KnownOverheads,
                 "calibrate --from-benchmark recovers known overheads within 10 percent from vllm bench serve's aggregates",
                 "[cli][calibrate][summary]") {
  SummaryCalibrationOptions options;
  const BenchmarkSummary s = read_benchmark_summary(vllm_summary(dir, scenario));
  const SummaryCalibration fit = calibrate_overheads_to_summary(s, unmodified, options);
  CHECK(fit.unidentified.empty());
  CHECK(fit.fitted.per_step_ns == Approx(300e3).epsilon(0.10));
  CHECK(fit.fitted.per_request_ns == Approx(2e6).epsilon(0.10));
  CHECK(fit.objective_after < fit.objective_before / 100);
}

TEST_CASE_METHOD(KnownOverheads,
                 "calibrate --from-benchmark recovers known overheads within 10 percent from GuideLLM's aggregates",
                 "[cli][calibrate][summary]") {
  SummaryCalibrationOptions options;
  const std::string out = (dir.path / "g").string();
  REQUIRE(run_cli("run " + scenario + " --bench-format guidellm --quiet --out " + out).exit_code == 0);
  nlohmann::json j = read_json(out + "/guidellm.json");
  j["benchmarks"][0].erase("requests");
  write_json(out + "/summary.json", j);
  const SummaryCalibration fit = calibrate_overheads_to_summary(read_benchmark_summary(out + "/summary.json"),
                                                                unmodified, options);
  CHECK(fit.fitted.per_step_ns == Approx(300e3).epsilon(0.10));
  CHECK(fit.fitted.per_request_ns == Approx(2e6).epsilon(0.10));
}

TEST_CASE_METHOD(KnownOverheads,
                 "calibrate --from-benchmark recovers known overheads from inference-perf's stage reports fitted on one stage and checked on the other",
                 "[cli][calibrate][summary]") {
  SummaryCalibrationOptions options;
  // Two runs of the deployment at 8 and 12 requests/s make the two stage reports of one
  // inference-perf run.
  const std::string a = (dir.path / "ip0").string(), b = (dir.path / "ip1").string();
  REQUIRE(run_cli("run " + scenario + " --bench-format inference-perf --quiet --out " + a).exit_code == 0);
  REQUIRE(run_cli("run " + scenario + " --set workload.0.arrival.rate=12 --set stop.requests=600"
                  " --bench-format inference-perf --quiet --out " + b).exit_code == 0);
  std::filesystem::remove(a + "/per_request_lifecycle_metrics.json");
  std::filesystem::copy_file(b + "/stage_0_lifecycle_metrics.json", a + "/stage_1_lifecycle_metrics.json");
  const BenchmarkSummary s = read_benchmark_summary(a + "/stage_0_lifecycle_metrics.json");
  REQUIRE(s.stages.size() == 2);
  CHECK(s.stages[1].rate_per_s == 12.0);
  CHECK(s.stages[1].requests == 600);
  for (const int stage : {0, 1}) {
    INFO("fitted on stage " << stage);
    options.fit_stages = {stage};
    const SummaryCalibration fit = calibrate_overheads_to_summary(s, unmodified, options);
    // Fitted on the 600 requests at 12/s, per step and per request trade against each
    // other along a nearly flat valley of the figures (334 us and 1.79 ms fit them within
    // 0.1%), so that fit is held to the per-request calibration's 15%.
    const double within = stage == 0 ? 0.10 : 0.15;
    CHECK(fit.fitted.per_step_ns == Approx(300e3).epsilon(within));
    CHECK(fit.fitted.per_request_ns == Approx(2e6).epsilon(within));
    REQUIRE(fit.after.size() == 2);
    CHECK(fit.after[static_cast<std::size_t>(stage)].fitted_on);
    CHECK_FALSE(fit.after[static_cast<std::size_t>(1 - stage)].fitted_on);
    // The stage it did not see: the means within 3% after, each more than 5% off before
    // (the run without overheads is faster throughout).
    const SummaryStageResult& before = fit.before[static_cast<std::size_t>(1 - stage)];
    const SummaryStageResult& after = fit.after[static_cast<std::size_t>(1 - stage)];
    for (std::size_t i = 0; i < after.rows.size(); ++i) {
      if (after.rows[i].figure.find("_mean_") == std::string::npos) continue;
      INFO(after.rows[i].figure);
      CHECK(before.rows[i].error < -0.05);
      CHECK(std::fabs(after.rows[i].error) < 0.03);
    }
  }

  // The CLI prints both stages and writes a profile; every stage fitted leaves none to check.
  const std::string profile = (dir.path / "engine.yaml").string();
  const auto cli = run_cli("calibrate --from-benchmark " + a + "/stage_1_lifecycle_metrics.json --scenario " +
                           scenario + kZeroSets + " --max-replays 80 -o " + profile);
  INFO(cli.output);
  CHECK(cli.exit_code == 0);
  CHECK(cli.output.find("split: fitted on stage 0; checked on stage 1") != std::string::npos);
  CHECK(cli.output.find("stage 1 (checked on; 600 simulated requests completed)") != std::string::npos);
  CHECK(cli.output.find("ntpot_mean_ms") != std::string::npos);
  CHECK(std::filesystem::exists(profile));
  CHECK(run_cli("calibrate --from-benchmark " + a + "/stage_0_lifecycle_metrics.json --scenario " + scenario +
                " --fit-stages 0,1").exit_code == 2);
  CHECK(run_cli("calibrate --from-benchmark " + a + "/stage_0_lifecycle_metrics.json --scenario " + scenario +
                " --fit-stages 2").exit_code == 2);
  CHECK(run_cli("calibrate --from-benchmark " + a + "/stage_0_lifecycle_metrics.json --scenario " + scenario +
                " --fit-stages one").exit_code == 2);
}

TEST_CASE("calibrate from aggregates refuses a scenario whose workload is not the benchmark's naming both",
          "[cli][calibrate][summary]") {
  const TempDir dir("summary_mismatch");
  const std::string scenario = write_scenario(dir, 200, 8);
  const std::string bench = vllm_summary(dir, scenario);
  const auto other = run_cli("calibrate --from-benchmark " + bench + " --scenario " + scenario +
                             " --set stop.requests=150 --set workload.0.arrival.rate=6"
                             " --set workload.0.input.uniform.1=4000 --max-replays 10");
  INFO(other.output);
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("num_prompts: the benchmark sent 200 requests, the scenario's stop.requests is 150") !=
        std::string::npos);
  CHECK(other.output.find("request_rate: the benchmark's rate is 8 requests/s, the scenario's class chat is "
                          "poisson at 6/s") != std::string::npos);
  CHECK(other.output.find("total_input_tokens: the benchmark's completed requests had") != std::string::npos);
  CHECK(other.output.find("--force") != std::string::npos);
  // Closed-loop users against an open-loop rate, and vllm's burstiness against Poisson.
  const auto closed = run_cli("calibrate --from-benchmark " + bench + " --scenario " + scenario +
                              " --set workload.0.arrival.process=gamma --set workload.0.arrival.cv=2"
                              " --max-replays 10");
  INFO(closed.output);
  CHECK(closed.exit_code == 2);
  CHECK(closed.output.find("burstiness: the benchmark's gaps have gamma shape 1, the scenario's class chat "
                           "arrives gamma (shape 0.25)") != std::string::npos);
  // --force fits anyway, with the mismatches as warnings.
  const auto forced = run_cli("calibrate --from-benchmark " + bench + " --scenario " + scenario +
                              " --set stop.requests=150 --force --max-replays 10");
  CHECK(forced.exit_code == 0);
  CHECK(forced.output.find("warning: the scenario's workload is not the benchmark's: num_prompts") !=
        std::string::npos);
  // A scenario without stop: takes the file's request count, and says so.
  const std::string no_stop = (dir.path / "no_stop.yaml").string();
  std::string text = servesim::testing::read_file(scenario);
  text.erase(text.find("stop:"), text.find('\n', text.find("stop:")) - text.find("stop:") + 1);
  std::ofstream(no_stop) << text;
  const auto filled = run_cli("calibrate --from-benchmark " + bench + " --scenario " + no_stop + " --max-replays 10");
  INFO(filled.output);
  CHECK(filled.exit_code == 0);
  CHECK(filled.output.find("note: stop.requests set to the benchmark's num_prompts (200)") != std::string::npos);
  // --fit-stages is for aggregates: a per-request file is split by calibration itself.
  CHECK(run_cli("calibrate --from-benchmark tests/data/benchmarks/vllm_bench_detailed.json --scenario " + scenario +
                " --fit-stages 0").exit_code == 2);
}

TEST_CASE("calibrate from aggregates says a knob async scheduling hides is not identifiable and writes nothing",
          "[cli][calibrate][summary]") {
  const TempDir dir("summary_hidden");
  const std::string scenario = write_scenario(dir, 200, 8);
  const std::string bench = vllm_summary(dir, scenario);
  const std::string profile = (dir.path / "engine.yaml").string();
  const auto hidden = run_cli("calibrate --from-benchmark " + bench + " --scenario " + scenario +
                              " --set cluster.pools.0.engine.async_scheduling=auto" + kZeroSets +
                              " --max-replays 40 -o " + profile);
  INFO(hidden.output);
  CHECK(hidden.exit_code == 1);
  CHECK(hidden.output.find("per_step is not identifiable from this benchmark's figures: pool main's engine runs "
                           "async scheduling") != std::string::npos);
  CHECK(hidden.output.find("per_step     0.0us  ->  not identifiable") != std::string::npos);
  CHECK(hidden.output.find("nothing written") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(profile));
}

TEST_CASE("calibrate from inference-perf stage reports runs each stage of the config the scenario replays",
          "[cli][calibrate][summary]") {
  // The bundled shared-prefix example: stage 0 sends 30 requests at 1/s, stage 1 60 at 2/s
  // (scenarios/inference-perf/shared-prefix.yaml). Each stage run alone writes one stage
  // report; together they are the report folder of one inference-perf run.
  const TempDir dir("summary_config");
  std::filesystem::copy_file("scenarios/inference-perf/shared-prefix-config.yaml", dir.path / "config.yaml");
  std::string text = servesim::testing::read_file("scenarios/inference-perf/shared-prefix.yaml");
  text.replace(text.find("shared-prefix-config.yaml"), 25, "config.yaml");
  text.replace(text.find("      engine:\n"), 14,
               "      engine:\n        preset: vllm\n        async_scheduling: false\n"
               "        overheads: {per_step: 300us, per_request: 2ms}\n");
  const std::string scenario = (dir.path / "s.yaml").string();
  std::ofstream(scenario) << text;
  const std::string report = (dir.path / "report").string();
  std::filesystem::create_directories(report);
  for (const int stage : {0, 1}) {
    const std::string out = (dir.path / ("r" + std::to_string(stage))).string();
    REQUIRE(run_cli("run " + scenario + " --set workload.0.trace.stage=" + std::to_string(stage) +
                    " --bench-format inference-perf --quiet --out " + out).exit_code == 0);
    std::filesystem::copy_file(out + "/stage_0_lifecycle_metrics.json",
                               report + "/stage_" + std::to_string(stage) + "_lifecycle_metrics.json");
  }
  const BenchmarkSummary s = read_benchmark_summary(report + "/stage_0_lifecycle_metrics.json");
  REQUIRE(s.stages.size() == 2);
  CHECK(s.stages[0].requests == 30);
  CHECK(s.stages[1].requests == 60);
  const Scenario unmodified = load_scenario(scenario, kZeroOverheads);
  const SummaryWorkloadCheck check = check_summary_workload(s, unmodified);
  CHECK(check.mismatches.empty());
  REQUIRE(check.notes.size() == 2);
  CHECK(check.notes[1].find("stage 1: run as stage 1 of ") == 0);
  const SummaryCalibration fit = calibrate_overheads_to_summary(s, unmodified, SummaryCalibrationOptions{});
  CHECK(fit.after[1].simulated_completed == 60);
  CHECK(fit.fitted.per_step_ns == Approx(300e3).epsilon(0.10));
  CHECK(fit.fitted.per_request_ns == Approx(2e6).epsilon(0.10));
  // Reports of another run (the stages the other way round) are another workload: the
  // config's stage 0 sends 30 requests where the report counts 60.
  const std::string swapped = (dir.path / "swapped").string();
  std::filesystem::create_directories(swapped);
  std::filesystem::copy_file(report + "/stage_0_lifecycle_metrics.json", swapped + "/stage_1_lifecycle_metrics.json");
  std::filesystem::copy_file(report + "/stage_1_lifecycle_metrics.json", swapped + "/stage_0_lifecycle_metrics.json");
  const SummaryWorkloadCheck other =
      check_summary_workload(read_benchmark_summary(swapped + "/stage_0_lifecycle_metrics.json"), unmodified);
  REQUIRE_FALSE(other.mismatches.empty());
  CHECK(other.mismatches[0] == "stage 0: load_summary.count: the benchmark sent 60 requests, the scenario's trace 30");
}

TEST_CASE("calibrate from aggregates refuses a malformed file naming its line and key with exit 2",
          "[cli][calibrate][summary]") {
  const TempDir dir("summary_bad");
  const std::string scenario = write_scenario(dir, 100, 8);
  const auto negative = dir.write("negative.json",
                                  "{\n\"backend\": \"vllm\",\n\"model_id\": \"llama-3-8b\",\n\"request_rate\": 8,\n"
                                  "\"completed\": 100,\n\"mean_ttft_ms\": -1\n}\n");
  const auto a = run_cli("calibrate --from-benchmark " + negative.string() + " --scenario " + scenario);
  CHECK(a.exit_code == 2);
  CHECK(a.output.find("negative.json:6: mean_ttft_ms: must be >= 0 ms") != std::string::npos);
  const auto none = dir.write("none.json",
                              "{\n\"backend\": \"vllm\",\n\"request_rate\": 8,\n\"completed\": 0,\n"
                              "\"mean_ttft_ms\": 10\n}\n");
  const auto b = run_cli("calibrate --from-benchmark " + none.string() + " --scenario " + scenario);
  CHECK(b.exit_code == 2);
  CHECK(b.output.find("none.json:4: completed: is 0: no request succeeded") != std::string::npos);
  const auto rate = dir.write("rate.json", "{\n\"backend\": \"vllm\",\n\"request_rate\": \"fast\",\n\"completed\": 3\n}\n");
  const auto c = run_cli("calibrate --from-benchmark " + rate.string() + " --scenario " + scenario);
  CHECK(c.exit_code == 2);
  CHECK(c.output.find("rate.json:3: request_rate: must be a number > 0 or \"inf\"") != std::string::npos);
  // An inference-perf stage report without its latencies.
  std::filesystem::create_directories(dir.path / "ip");
  const auto stage = dir.write("ip/stage_0_lifecycle_metrics.json",
                               "{\n\"load_summary\": {\"count\": 10},\n\"successes\": {\n\"count\": 10\n}\n}\n");
  const auto d = run_cli("calibrate --from-benchmark " + stage.string() + " --scenario " + scenario);
  CHECK(d.exit_code == 2);
  CHECK(d.output.find("stage_0_lifecycle_metrics.json:3: successes.latency: missing") != std::string::npos);
}

TEST_CASE("calibrate --format with no name lists the aggregate formats too and exits 0", "[cli][calibrate][summary]") {
  const auto listed = run_cli("calibrate --from-benchmark run.json --format");
  CHECK(listed.exit_code == 0);
  CHECK(listed.output.find("aggregates only (calibrate; the same names):\n"
                           "  vllm-bench       vllm bench serve --save-result without --save-detailed\n") !=
        std::string::npos);
}

}  // namespace calibrate_summary_test
