// `servesim calibrate --from-benchmark BENCH --scenario S [--fit per_step,per_request,per_token]
// [-o ENGINE.yaml]`: fits the engine-overhead knobs of the scenario's deployment to a real
// benchmark run (sim/study/benchmark_calibration.h), prints the fit and the error on the
// requests it held out, and writes an engine profile that records the fit
// (sim/report/overhead_calibration_report.h). The path from request to profile is
// sim/report/benchmark_calibration_outcome.h, which the Python package shares.
#include <ostream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/report/benchmark_calibration_outcome.h"
#include "sim/report/overhead_calibration_report.h"
#include "sim/report/replay_report.h"

namespace po = boost::program_options;

namespace servesim::cli {
namespace {

// The options as typed, the request's fields among them.
struct BenchmarkCalibrationOptions {
  BenchmarkCalibrationRequest request;
  std::string output;
};

po::options_description benchmark_calibration_options(BenchmarkCalibrationOptions& o) {
  BenchmarkCalibrationRequest& r = o.request;
  po::options_description opts("servesim calibrate --from-benchmark BENCH --scenario S [options]");
  opts.add_options()("help,h", "show this help")
      ("from-benchmark", po::value(&r.bench_path), "the benchmark's results (vllm bench serve, inference-perf, GuideLLM): per request, or aggregates only")
      ("scenario", po::value(&r.scenario_path), "the deployment the benchmark ran on (scenario YAML)")
      ("format", po::value(&r.format), "benchmark format: auto (default), vllm-bench, inference-perf, guidellm")
      ("set", po::value(&r.sets)->composing(), "override a scenario key: --set cluster.pools.0.replicas=4")
      ("fit", po::value(&r.fit_list), "the overheads to fit, comma-separated: per_step, per_request, per_token (default per_step,per_request)")
      ("fit-stages", po::value(&r.fit_stages), "a file of aggregates with several stages: the stages to fit on, comma-separated (default 0); the others check the fit")
      ("max-replays", po::value(&r.max_evaluations), "most simulations the search may run (default 240; from aggregates, from each of its 3 starts)")
      ("force", "fit to a benchmark whose model, tokenizer, engine or parallelism differ from the scenario's (a warning instead of exit 2)")
      ("output,o", po::value(&o.output), "write the engine profile here (default: standard output)");
  return opts;
}

// What --help prints above the options.
constexpr const char* kAbout =
    "Fits the engine's CPU overheads (per step, per request, per sampled token) so that\n"
    "replaying the benchmark's requests through the scenario matches the measured TTFT,\n"
    "TPOT and E2E (mean, p50, p90), and reports the error on requests held out of the fit\n"
    "(the last load stage, or alternate windows of a single-stage run). Nothing else\n"
    "moves. Writes an engine profile to use as the pool's engine preset.\n"
    "The scenario gives the deployment (it needs no stop:); the model, tokenizer, engine\n"
    "and parallelism the file states must be its own (exit 2 naming both, unless --force).\n"
    "A knob the fitted figures do not change with (CPU overheads hidden by async\n"
    "scheduling) is reported as not identifiable, with the setting under which it would\n"
    "show, and left out of the profile; when no knob is identifiable nothing is written\n"
    "and the exit code is 1.\n"
    "A file of aggregates only (vllm bench serve without --save-detailed, inference-perf's\n"
    "summary or stage reports, a GuideLLM report without its requests) has no requests to\n"
    "replay: the scenario's workload is run instead, and must be the one the file states\n"
    "(request count, rate or concurrency, mean lengths: exit 2 naming both, unless\n"
    "--force); the fit matches the file's means and percentiles, on the stages of\n"
    "--fit-stages, and is checked on the others.\n";

// Every knob of --fit unidentifiable: the fit's report and why nothing is written, exit 1.
int nothing_identified(const std::string& report, std::ostream& err) {
  err << report << "servesim calibrate: no knob of --fit could be identified from this benchmark; "
      << "nothing written\n";
  return 1;
}

}  // namespace

int calibrate_from_benchmark_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  BenchmarkCalibrationOptions options;
  const po::options_description opts = benchmark_calibration_options(options);
  if (asks_for_formats(args) && !asks_for_help(args)) {
    print_benchmark_formats(out);
    print_benchmark_summary_formats(out);
    return 0;
  }
  po::variables_map vm;
  if (const auto done = parse_command(args, opts, kAbout, Operands(), vm, out, err)) return *done;
  const BenchmarkCalibrationRequest& request = options.request;
  if (request.bench_path.empty() || request.scenario_path.empty()) {
    err << "servesim calibrate: --from-benchmark and --scenario are both required\n\n" << opts;
    return 2;
  }
  options.request.fit_given = vm.count("fit") > 0;
  options.request.force = vm.count("force") > 0;
  const BenchmarkCalibrationOutcome outcome = calibrate_from_benchmark(request, err);
  if (outcome.exit_code == 2) return 2;
  if (outcome.exit_code == 1) return nothing_identified(outcome.report, err);
  emit_engine_profile(outcome.profile, options.output, outcome.benchmark, outcome.report, out, err);
  return 0;
}

}  // namespace servesim::cli
