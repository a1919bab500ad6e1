// `servesim calibrate --from-benchmark BENCH --scenario S [--fit per_step,per_request,per_token]
// [-o ENGINE.yaml]`: fits the engine-overhead knobs of the scenario's deployment to a real
// benchmark run (sim/study/overhead_calibration.h), prints the fit and the error on the
// requests it held out, and writes an engine profile that records the fit.
#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cli/replay_report.h"
#include "sim/core/errors.h"
#include "sim/report/atomic_write.h"
#include "sim/report/engine_profile_writer.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/overhead_calibration.h"
#include "sim/study/summary_calibration.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/benchmark_summary.h"

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

void print_summary_fit(const SummaryCalibration& fit, std::ostream& out) {
  out << "split: " << fit.split << "\n";
  out << "overheads    start        fitted\n";
  const auto row = [&](const std::string& knob, Tick start, Tick fitted) {
    bool asked = false, identified = true;
    for (const std::string& k : fit.knobs) asked = asked || k == knob;
    for (const UnidentifiedKnob& u : fit.unidentified) identified = identified && u.name != knob;
    out << knob << std::string(13 - knob.size(), ' ') << engine_duration_text(start) << "  ->  "
        << (!asked ? std::string("not fitted") : identified ? engine_duration_text(fitted) : "not identifiable") << "\n";
  };
  row("per_step", fit.start.per_step_ns, fit.fitted.per_step_ns);
  row("per_request", fit.start.per_request_ns, fit.fitted.per_request_ns);
  row("per_token", fit.start.per_token_ns, fit.fitted.per_token_ns);
  char line[200];
  std::snprintf(line, sizeof line, "(%d simulations; mean squared error of the fitted figures %.4g -> %.4g)\n",
                fit.evaluations, fit.objective_before, fit.objective_after);
  out << line;
  for (std::size_t k = 0; k < fit.after.size() && k < fit.before.size(); ++k) {
    const SummaryStageResult& b = fit.before[k];
    const SummaryStageResult& a = fit.after[k];
    out << "\n" << a.name << " (" << (a.fitted_on ? "fitted on" : "checked on") << "; " << a.simulated_completed
        << " simulated requests completed" << (a.saturated ? ", saturated" : "") << ")\n";
    out << "  figure                  measured     before  (error)      after  (error)\n";
    for (std::size_t i = 0; i < a.rows.size() && i < b.rows.size(); ++i) {
      std::snprintf(line, sizeof line, "  %-20s %11.3f %10.3f (%+6.1f%%) %10.3f (%+6.1f%%)%s\n", a.rows[i].figure.c_str(),
                    a.rows[i].measured_ms, b.rows[i].simulated_ms, 100 * b.rows[i].error, a.rows[i].simulated_ms,
                    100 * a.rows[i].error, a.rows[i].fitted && a.fitted_on ? "  fitted" : "");
      out << line;
    }
  }
}

std::vector<int> stage_list(const std::string& text) {
  std::vector<int> stages;
  for (const std::string& item : split_list(text)) {
    const bool digits = !item.empty() && item.size() <= 6 &&
                        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      throw ConfigError("", 0, "--fit-stages", "'" + item + "' is not a stage number (0, 1, ...; comma-separated)");
    }
    stages.push_back(std::stoi(item));
  }
  return stages;
}

// The aggregate path: the workload is the scenario's, checked against what the file states.
int calibrate_from_summary(const std::string& bench_path, const std::string& format, const Scenario& scenario,
                           const std::string& scenario_path,
                           const std::vector<std::string>& sets, const std::string& fit_list,
                           const std::string& fit_stages, int max_replays, bool force, const std::string& output,
                           std::ostream& out, std::ostream& err) {
  const BenchmarkSummary summary = read_benchmark_summary(bench_path, format);
  if (!check_benchmark_deployment(summary.deployment, scenario, force, "servesim calibrate", err)) return 2;
  const SummaryWorkloadCheck check = check_summary_workload(summary, scenario);
  for (const std::string& note : check.notes) err << "servesim calibrate: note: " << note << "\n";
  if (!check.mismatches.empty()) {
    for (const std::string& m : check.mismatches) {
      err << "servesim calibrate: " << (force ? "warning: " : "") << "the scenario's workload is not the benchmark's: "
          << m << "\n";
    }
    if (!force) {
      err << "servesim calibrate: " << bench_path << " holds aggregates only, so the workload is the scenario's; "
          << "make it the benchmark's (or --force to fit anyway)\n";
      return 2;
    }
  }
  SummaryCalibrationOptions options;
  options.knobs = split_list(fit_list);
  options.max_evaluations = max_replays;
  if (!fit_stages.empty()) options.fit_stages = stage_list(fit_stages);
  const SummaryCalibration fit = calibrate_overheads_to_summary(summary, scenario, options);
  for (const UnidentifiedKnob& u : fit.unidentified) {
    err << "servesim calibrate: warning: " << u.name << " is not identifiable from this benchmark's figures: " << u.why
        << "; it is left out of the profile\n";
    if (!u.setting.empty()) err << "  it would show under " << u.setting << "\n";
  }
  std::ostringstream report;
  print_summary_fit(fit, report);
  if (fit.unidentified.size() == fit.knobs.size()) {
    err << report.str() << "servesim calibrate: no knob of --fit could be identified from this benchmark; "
        << "nothing written\n";
    return 1;
  }
  const std::string description = summary.format + " aggregates " + bench_path + " (" +
                                  std::to_string(summary.stages.size()) + " stage" +
                                  (summary.stages.size() == 1 ? "" : "s") + "; the workload is the scenario's)";
  EngineProfileProvenance provenance;
  provenance.command = "servesim calibrate --from-benchmark " + bench_path + " --scenario " + scenario_path;
  for (const std::string& s : sets) provenance.command += " --set " + s;
  provenance.command += " --fit " + fit_list;
  if (!fit_stages.empty()) provenance.command += " --fit-stages " + fit_stages;
  provenance.base_preset = scenario.cluster.pools.empty() ? "" : scenario.cluster.pools.front().engine.preset;
  provenance.benchmark = description;
  std::ostringstream yaml;
  write_engine_profile(yaml, as_overhead_calibration(fit), provenance);
  if (output.empty()) {
    out << yaml.str();
    err << report.str();
    return 0;
  }
  write_file_atomically(output, "--output", [&](std::ostream& os) { os << yaml.str(); });
  out << description << "\n" << report.str() << "wrote " << output << "\n";
  return 0;
}

}  // namespace

int calibrate_from_benchmark_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim calibrate --from-benchmark BENCH --scenario S [options]");
  std::string bench_path, scenario_path, format = "auto", output, fit_list = "per_step,per_request", fit_stages;
  std::vector<std::string> sets;
  int max_replays = OverheadCalibrationOptions{}.max_evaluations;
  opts.add_options()("help,h", "show this help")
      ("from-benchmark", po::value(&bench_path), "the benchmark's results (vllm bench serve, inference-perf, GuideLLM): per request, or aggregates only")
      ("scenario", po::value(&scenario_path), "the deployment the benchmark ran on (scenario YAML)")
      ("format", po::value(&format), "benchmark format: auto (default), vllm-bench, inference-perf, guidellm")
      ("set", po::value(&sets)->composing(), "override a scenario key: --set cluster.pools.0.replicas=4")
      ("fit", po::value(&fit_list), "the overheads to fit, comma-separated: per_step, per_request, per_token (default per_step,per_request)")
      ("fit-stages", po::value(&fit_stages), "a file of aggregates with several stages: the stages to fit on, comma-separated (default 0); the others check the fit")
      ("max-replays", po::value(&max_replays), "most simulations the search may run (default 240; from aggregates, from each of its 3 starts)")
      ("force", "fit to a benchmark whose model, tokenizer, engine or parallelism differ from the scenario's (a warning instead of exit 2)")
      ("output,o", po::value(&output), "write the engine profile here (default: standard output)");
  po::variables_map vm;
  if (asks_for_formats(args) && !asks_for_help(args)) {
    print_benchmark_formats(out);
    out << "aggregates only (calibrate; the same names):\n";
    for (const BenchmarkSummaryFormat& f : benchmark_summary_formats()) {
      char line[200];
      std::snprintf(line, sizeof line, "  %-16s %s\n", f.name, f.about);
      out << line;
    }
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
           "and the exit code is 1.\n"
           "A file of aggregates only (vllm bench serve without --save-detailed, inference-perf's\n"
           "summary or stage reports, a GuideLLM report without its requests) has no requests to\n"
           "replay: the scenario's workload is run instead, and must be the one the file states\n"
           "(request count, rate or concurrency, mean lengths: exit 2 naming both, unless\n"
           "--force); the fit matches the file's means and percentiles, on the stages of\n"
           "--fit-stages, and is checked on the others.\n\n"
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
  if (is_benchmark_summary(bench_path, format)) {
    return calibrate_from_summary(bench_path, format, scenario, scenario_path, sets, fit_list, fit_stages,
                                  max_replays, vm.count("force") > 0, output, out, err);
  }
  if (!fit_stages.empty()) {
    err << "servesim calibrate: --fit-stages applies to a file of aggregates; " << bench_path
        << " lists its requests, which calibration splits itself\n";
    return 2;
  }
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
