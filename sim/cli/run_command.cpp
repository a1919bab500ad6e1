// `servesim run SCENARIO.yaml [--out DIR] [--seed N] [--set KEY=VALUE]...`
#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "sim/cli/commands.h"
#include "sim/cluster/engine_setup.h"
#include "sim/cli/options.h"
#include "sim/cli/run_reports.h"
#include "sim/cluster/invariant_checker.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/report/console_report.h"
#include "sim/report/replicate_report.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/report/requests_csv_writer.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/scenario_summary.h"
#include "sim/report/summary_writer.h"
#include "sim/scenario/vllm_goodput.h"
#include "sim/study/replicates.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace servesim::cli {
namespace {

// Writes to PATH.partial and renames on commit(), so an interrupted run never leaves a
// file that looks complete.
class AtomicFile {
 public:
  explicit AtomicFile(fs::path path) : path_(std::move(path)), tmp_(path_.string() + ".partial") {}
  const fs::path& tmp() const { return tmp_; }
  void commit() { fs::rename(tmp_, path_); }
  ~AtomicFile() {
    std::error_code ec;
    fs::remove(tmp_, ec);
  }

 private:
  fs::path path_, tmp_;
};

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
  const int replicates = vm.count("replicates") ? vm["replicates"].as<int>() : 1;
  check_replicates(replicates);

  Scenario scenario = load_scenario(scenario_path, sets);
  if (seed) scenario.seed = *seed;
  if (out_dir.empty()) out_dir = "results/" + scenario.name;
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

  std::optional<Simulation> simulation;
  try {
    simulation.emplace(scenario.seed, scenario.stop, scenario.workload, scenario.cluster);
  } catch (const ConfigError& e) {
    if (!e.file().empty()) throw;
    throw ConfigError(scenario.source_file, e.line(), e.key(), e.message());
  }

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw ConfigError(out_dir, 0, "--out", "cannot create the output folder: " + ec.message());

  std::vector<std::string> class_names, pool_names;
  for (const auto& c : scenario.workload) class_names.push_back(c.name);
  for (const auto& p : scenario.cluster.pools) pool_names.push_back(p.name);

  std::optional<AtomicFile> csv_file;
  std::optional<RequestsCsvWriter> csv;
  if (scenario.outputs.requests_csv) {
    csv_file.emplace(fs::path(out_dir) / "requests.csv");
    csv.emplace(csv_file->tmp().string(), class_names, pool_names);
  }
  // timeseries.csv, trace.json and the progress line (on a terminal only).
  RunReports reports(*simulation, scenario, out_dir, !vm.count("quiet") && stderr_is_terminal(err), err);
  const InvariantChecker::RecordSink sink = [&](const RequestRecord& r) {
    if (csv) csv->write(r);
    reports.on_request(r);
  };

  // The checker takes over the request sink and passes each record on.
  std::optional<InvariantChecker> checker;
  if (vm.count("check-invariants")) {
    checker.emplace(*simulation, sink);
  } else {
    simulation->set_request_sink(sink);
  }

  const auto wall_start = std::chrono::steady_clock::now();
  const RunResult result = simulation->run();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  reports.end_progress();

  if (checker) {
    checker->check_end(result);
    if (!checker->ok()) {  // a simulator bug: no result file may look trustworthy
      err << "servesim run: " << checker->report() << "\n";
      return 1;
    }
  }

  if (csv) {
    csv->close();
    csv_file->commit();
  }
  reports.commit(result);
  std::optional<ReplicateIntervals> intervals;
  if (replicates >= 2) intervals = run_replicates(scenario, result.summary, replicates);
  AtomicFile summary_file(fs::path(out_dir) / "summary.json");
  {
    std::ofstream f(summary_file.tmp());
    write_summary_json(result.summary, f, intervals ? &*intervals : nullptr);
    if (!f) throw ConfigError(summary_file.tmp().string(), 0, "--out", "cannot write summary.json");
  }
  summary_file.commit();
  // Output files of an earlier run into the same folder that this run does not write
  // would sit beside the new summary.json as if they belonged to it: remove them.
  std::vector<std::string> written = {"summary.json"};
  if (csv) written.push_back("requests.csv");
  for (const auto& path : reports.written()) written.push_back(fs::path(path).filename().string());
  std::vector<std::string> outputs = {"requests.csv", "timeseries.csv", "trace.json"};
  for (const BenchmarkWriterFormat& w : benchmark_writer_formats()) outputs.emplace_back(w.file_name);
  for (const std::string& name : outputs) {
    if (std::find(written.begin(), written.end(), name) != written.end()) continue;
    const fs::path stale = fs::path(out_dir) / name;
    std::error_code remove_ec;
    if (fs::is_regular_file(stale, remove_ec) && fs::remove(stale, remove_ec))
      err << "servesim run: note: removed " << stale.string()
          << ", left by an earlier run: this run's outputs do not include it\n";
  }

  if (!vm.count("quiet")) {
    out << "servesim run: " << scenario.name << " (seed " << scenario.seed << ")\n";
    for (std::size_t i = 0; i < scenario.cluster.pools.size(); ++i) {
      const PoolConfig& pool = scenario.cluster.pools[i];
      out << kv_cache_report(pool, "cluster.pools." + std::to_string(i)) << "\n"
          << "pool " << pool.name << ": cost model " << describe_cost_model(pool.cost_model) << "\n";
    }
    print_console_report(result.summary, out);
    if (intervals) print_replicate_intervals(*intervals, out);
    out << "\narrived " << result.arrived << ", completed " << result.completed << ", rejected "
        << result.rejected << ", unfinished " << result.unfinished << "; " << result.steps << " engine steps, "
        << result.preemptions << " preemptions; simulated " << seconds_from_ticks(result.end_ns) << " s in "
        << wall_s << " s wall\n";
    if (result.stopped_by_time) out << "note: stop.time ended the run with requests still in flight\n";
    out << "wrote " << (fs::path(out_dir) / "summary.json").string();
    if (csv) out << ", " << (fs::path(out_dir) / "requests.csv").string();
    for (const auto& path : reports.written()) out << ", " << path;
    out << "\n";
    if (checker) out << "invariants (docs/INVARIANTS.md): all held over " << checker->figures().steps << " steps\n";
  }
  return 0;
}

}  // namespace servesim::cli
