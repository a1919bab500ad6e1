// `servesim run SCENARIO.yaml [--out DIR] [--seed N] [--set KEY=VALUE]...`
#include <boost/program_options.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "sim/cli/commands.h"
#include "sim/cluster/engine_setup.h"
#include "sim/cli/options.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/report/console_report.h"
#include "sim/report/nothing_served.h"
#include "sim/report/replicate_report.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/run_size.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/scenario_summary.h"
#include "sim/scenario/servability.h"
#include "sim/scenario/set_overrides.h"
#include "sim/scenario/vllm_goodput.h"
#include "sim/study/streaming_capacity.h"
#include "sim/report/run_files.h"
#include "sim/report/run_reports.h"
#include "sim/study/replicates.h"
#include "sim/study/run_judgement.h"

namespace po = boost::program_options;
namespace servesim::cli {
namespace {

// --goodput and --bench-format, applied to the loaded scenario.
void apply_run_options(const std::vector<std::string>& goodput, const std::vector<std::string>& bench_formats,
                       Scenario& scenario) {
  // vLLM judges every request by the same bounds, so they replace each class's own.
  if (!goodput.empty()) {
    const SloSpec vllm_slo = parse_vllm_goodput(goodput);
    for (ClassSpec& c : scenario.workload) c.slo = vllm_slo;
  }
  for (const std::string& name : bench_formats) {
    if (find_benchmark_writer(name) == nullptr) {
      std::vector<std::string> valid;
      for (const BenchmarkWriterFormat& w : benchmark_writer_formats()) valid.emplace_back(w.name);
      throw ConfigError("", 0, "--bench-format", unknown_choice_message("benchmark format", "formats", name, valid));
    }
    auto& listed = scenario.outputs.bench_formats;
    if (std::find(listed.begin(), listed.end(), name) == listed.end()) listed.push_back(name);
  }
}

void print_run(const Scenario& scenario, const RunFilesOutcome& run, bool checked_invariants, std::ostream& out) {
  const RunResult& result = run.result;
  out << "servesim run: " << scenario.name << " (seed " << scenario.seed << ")\n";
  for (std::size_t i = 0; i < scenario.cluster.pools.size(); ++i) {
    const PoolConfig& pool = scenario.cluster.pools[i];
    out << kv_cache_report(pool, "cluster.pools." + std::to_string(i)) << "\n"
        << "pool " << pool.name << ": cost model " << describe_cost_model(pool.cost_model) << "\n";
  }
  print_console_report(result.summary, out);
  if (run.intervals) print_replicate_intervals(*run.intervals, out);
  out << "\narrived " << result.arrived << ", completed " << result.completed << ", rejected "
      << result.rejected << ", unfinished " << result.unfinished << "; " << result.steps << " engine steps, "
      << result.preemptions << " preemptions; simulated " << seconds_from_ticks(result.end_ns) << " s in "
      << run.wall_s << " s wall\n";
  if (result.stopped_by_time) out << "note: stop.time ended the run with requests still in flight\n";
  for (const std::string& note : streaming_capacity_notes(scenario, result.summary)) out << "note: " << note << "\n";
  if (result.saturation.too_short) {
    const auto [key, value] = length_to_judge(scenario, result.saturation.sustained.needed_scale);
    if (!key.empty())
      out << "note: --set " << key << "=" << value
          << " or longer would judge whether it kept up, as far as its own arrivals tell\n";
  }
  // The workload ran out first (a trace's end, the last arrival stage): the figures are of
  // fewer requests than the stop asked for.
  const auto& asked = scenario.stop.requests;
  if (asked && result.arrived < *asked && !result.stopped_by_time)
    out << "note: the workload ran out after " << result.arrived << " arrivals, before stop.requests (" << *asked
        << ")\n";
  out << "wrote ";
  for (std::size_t i = 0; i < run.written.size(); ++i) out << (i ? ", " : "") << run.written[i];
  out << "\n";
  if (checked_invariants)
    out << "invariants (docs/INVARIANTS.md): all held over " << run.invariant_steps << " steps\n";
}

// A run that completed no request: what happened to its arrivals and what changes it.
void print_nothing_served(const RunFilesOutcome& run, const std::string& out_dir, std::ostream& err) {
  err << "servesim run: " << nothing_served_message(run.result) << "  (the run's files, which describe this, are in "
      << out_dir << ")\n";
}

}  // namespace

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("servesim run SCENARIO.yaml [options]");
  std::string scenario_path, out_dir;
  std::vector<std::string> sets, bench_formats, goodput;
  std::optional<std::uint64_t> seed;
  opts.add_options()("help,h", "show this help")
      ("out,o", po::value(&out_dir), "output folder (default results/NAME)")
      ("seed", po::value<std::uint64_t>(), "override the scenario's seed")
      ("replicates", po::value<int>(),
       "also run the seeds after it, K runs in all, and write each figure's mean and 95% interval over them "
       "in summary.json's \"replicates\" (the files are the first run's)")
      ("set", po::value(&sets)->composing(), "override a scenario key: --set cluster.pools.0.replicas=4")
      ("bench-format", po::value(&bench_formats)->composing(),
       "also write the requests as this benchmark tool writes its results: vllm, inference-perf or guidellm "
       "(repeatable; adds to the scenario's outputs.bench_format)")
      ("goodput", po::value(&goodput)->multitoken()->composing(),
       "judge every class's goodput as vLLM's --goodput does: ttft:200 tpot:50 e2el:1000, in milliseconds; "
       "replaces the scenario's slo: blocks")
      ("quiet,q", "print nothing but errors")
      ("check-invariants", "check docs/INVARIANTS.md at every step and request (slower); on a violation "
                           "print it, write no results and exit 1");
  const char* about =
      "Simulates a scenario; writes summary.json and requests.csv (and, when the scenario's outputs ask,\n"
      "timeseries.csv, trace.json and benchmark-tool files) to --out. On a terminal, stderr shows a\n"
      "progress line.\n";
  po::variables_map vm;
  if (const auto done = parse_scenario_command("run", args, opts, about, scenario_path, vm, out, err)) return *done;
  if (vm.count("seed")) seed = vm["seed"].as<std::uint64_t>();
  // --seed is applied after the scenario loads, so a --set seed=N beside it does nothing.
  if (seed) check_set_not_overwritten(sets, "seed", "the key --seed sets,");
  const int replicates = vm.count("replicates") ? vm["replicates"].as<int>() : 1;  // run_to_files checks it

  Scenario scenario = load_scenario(scenario_path, sets);
  if (seed) scenario.seed = *seed;
  for (const std::string& w : check_servability(scenario, sets).warnings) err << "servesim run: warning: " << w << "\n";
  if (const std::string warning = long_run_warning(scenario); !warning.empty()) err << warning << "\n";
  if (out_dir.empty()) out_dir = "results/" + scenario.name;
  apply_run_options(goodput, bench_formats, scenario);
  RunFilesOptions files;
  files.out_dir = out_dir;
  files.replicates = replicates;
  files.check_invariants = vm.count("check-invariants") > 0;
  files.progress = !vm.count("quiet") && stderr_is_terminal(err) ? &err : nullptr;
  files.notes = &err;
  const RunFilesOutcome run = run_to_files(scenario, files);
  if (!run.invariants_ok) {  // a simulator bug: no result file was written
    err << "servesim run: " << run.invariant_report << "\n";
    return 1;
  }
  if (run.result.completed == 0) {  // an empty table would read as a result
    print_nothing_served(run, out_dir, err);
    return 1;
  }
  if (!vm.count("quiet")) {
    print_run(scenario, run, files.check_invariants, out);
  }
  return 0;
}

}  // namespace servesim::cli
