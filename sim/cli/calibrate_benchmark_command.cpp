// `servesim calibrate --from-benchmark BENCH --scenario S [--fit per_step,per_request,per_token]
// [-o ENGINE.yaml]`: fits the engine-overhead knobs of the scenario's deployment to a real
// benchmark run (sim/study/overhead_calibration.h), prints the fit and the error on the
// requests it held out, and writes an engine profile that records the fit.
#include <ostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cli/replay_report.h"
#include "sim/report/atomic_write.h"
#include "sim/report/engine_profile_writer.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/overhead_calibration.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace po = boost::program_options;

namespace servesim::cli {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

void print_fit(const OverheadCalibration& fit, std::ostream& out) {
  out << "split: " << fit.split << "\n";
  out << "overheads    start        fitted\n";
  const auto row = [&](const std::string& knob, Tick start, Tick fitted) {
    out << knob << std::string(13 - knob.size(), ' ') << engine_duration_text(start) << "  ->  ";
    bool identified = true;
    for (const UnidentifiedKnob& u : fit.unidentified) identified = identified && u.name != knob;
    out << (identified ? engine_duration_text(fitted) : std::string("not identifiable")) << "\n";
  };
  row("per_step", fit.start.per_step_ns, fit.fitted.per_step_ns);
  row("per_request", fit.start.per_request_ns, fit.fitted.per_request_ns);
  row("per_token", fit.start.per_token_ns, fit.fitted.per_token_ns);
  out << "(" << fit.evaluations << " replays; mean squared error of the fitted figures " << fit.objective_before
      << " -> " << fit.objective_after << ")\n\nafter the fit:\n";
  print_replay_set(fit.fit_after, out);
  out << "\n";
  print_replay_set(fit.held_out_after, out);
}

}  // namespace

int calibrate_from_benchmark_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim calibrate --from-benchmark BENCH --scenario S [options]");
  std::string bench_path, scenario_path, format = "auto", output, fit_list = "per_step,per_request";
  std::vector<std::string> sets;
  int max_replays = OverheadCalibrationOptions{}.max_evaluations;
  opts.add_options()("help,h", "show this help")
      ("from-benchmark", po::value(&bench_path), "the benchmark's per-request results (vllm bench serve, inference-perf, GuideLLM)")
      ("scenario", po::value(&scenario_path), "the deployment the benchmark ran on (scenario YAML)")
      ("format", po::value(&format), "benchmark format: auto (default), vllm-bench, inference-perf, guidellm")
      ("set", po::value(&sets)->composing(), "override a scenario key: --set cluster.pools.0.replicas=4")
      ("fit", po::value(&fit_list), "the overheads to fit, comma-separated: per_step, per_request, per_token (default per_step,per_request)")
      ("max-replays", po::value(&max_replays), "most simulations the search may run (default 240)")
      ("force", "fit to a benchmark whose model, tokenizer, engine or parallelism differ from the scenario's (a warning instead of exit 2)")
      ("output,o", po::value(&output), "write the engine profile here (default: standard output)");
  po::variables_map vm;
  if (asks_for_formats(args) && !asks_for_help(args)) {
    print_benchmark_formats(out);
    return 0;
  }
  if (!parse_options(args, opts, po::options_description(), po::positional_options_description(), vm, err)) return 2;
  if (vm.count("help")) {
    out << "Fits the engine's CPU overheads (per step, per request, per sampled token) so that\n"
           "replaying the benchmark's requests through the scenario matches the measured TTFT,\n"
           "TPOT and E2E (mean, p50, p90), and reports the error on requests held out of the fit\n"
           "(the last load stage, or alternate windows of a single-stage run). Nothing else\n"
           "moves. Writes an engine profile to use as the pool's engine preset.\n"
           "The scenario gives the deployment (it needs no stop:); the model, tokenizer, engine\n"
           "and parallelism the file states must be its own (exit 2 naming both, unless --force).\n"
           "A knob the fitted figures do not change with (CPU overheads hidden by async\n"
           "scheduling) is reported as not identifiable, with the setting under which it would\n"
           "show, and left out of the profile; when no knob is identifiable nothing is written\n"
           "and the exit code is 1.\n\n"
        << opts;
    return 0;
  }
  if (bench_path.empty() || scenario_path.empty()) {
    err << "servesim calibrate: --from-benchmark and --scenario are both required\n\n" << opts;
    return 2;
  }
  if (max_replays < 1) {
    err << "servesim calibrate: --max-replays must be at least 1\n";
    return 2;
  }
  OverheadCalibrationOptions options;
  options.knobs = split_list(fit_list);
  options.max_evaluations = max_replays;
  // The benchmark's requests replace the scenario's workload, so the scenario needs no stop.
  const Scenario scenario = load_deployment(scenario_path, sets);
  const std::string base_preset = scenario.cluster.pools.empty() ? "" : scenario.cluster.pools.front().engine.preset;
  BenchmarkRun bench = read_benchmark(bench_path, format);
  if (!check_benchmark_deployment(bench, scenario, vm.count("force") > 0, "servesim calibrate", err)) return 2;
  const BenchmarkReplay replay(scenario, std::move(bench));
  const OverheadCalibration fit = calibrate_overheads(replay, options);
  for (const UnidentifiedKnob& u : fit.unidentified) {
    err << "servesim calibrate: warning: " << u.name << " is not identifiable from this benchmark: " << u.why
        << "; it is left out of the profile\n";
    if (!u.setting.empty()) err << "  it would show under " << u.setting << "\n";
  }
  if (fit.unidentified.size() == fit.knobs.size()) {
    std::ostringstream report;
    print_fit(fit, report);
    err << report.str() << "servesim calibrate: no knob of --fit could be identified from this benchmark; "
        << "nothing written\n";
    return 1;
  }

  EngineProfileProvenance provenance;
  provenance.command = "servesim calibrate --from-benchmark " + bench_path + " --scenario " + scenario_path;
  for (const std::string& s : sets) provenance.command += " --set " + s;
  if (vm.count("fit")) provenance.command += " --fit " + fit_list;
  provenance.base_preset = base_preset;
  provenance.benchmark = describe_benchmark(replay);
  std::ostringstream yaml;
  write_engine_profile(yaml, fit, provenance);
  if (output.empty()) {
    out << yaml.str();
    std::ostringstream report;
    print_fit(fit, report);
    err << report.str();
    return 0;
  }
  write_file_atomically(output, "--output", [&](std::ostream& os) { os << yaml.str(); });
  out << describe_benchmark(replay) << "\n";
  print_fit(fit, out);
  out << "wrote " << output << "\n";
  return 0;
}

}  // namespace servesim::cli
