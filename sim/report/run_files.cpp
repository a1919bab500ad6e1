#include "sim/report/run_files.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <ostream>

#include "sim/cluster/invariant_checker.h"
#include "sim/cluster/simulation.h"
#include "sim/core/errors.h"
#include "sim/report/atomic_write.h"
#include "sim/report/requests_csv_writer.h"
#include "sim/report/summary_writer.h"
#include "sim/report/benchmark/benchmark_writer.h"
#include "sim/report/html_report.h"
#include "sim/report/run_reports.h"
#include "sim/scenario/scenario.h"
#include "sim/study/replicates.h"
#include "sim/study/scenario_context.h"

namespace fs = std::filesystem;

namespace servesim {
namespace {

// Output files of an earlier run into the same folder that this run does not write would
// sit beside the new summary.json as if they belonged to it.
void remove_stale_outputs(const fs::path& out_dir, const std::vector<std::string>& written, std::ostream* notes) {
  std::vector<std::string> outputs = {"requests.csv", "timeseries.csv", "trace.json", "report.html",
                                      "run_context.json"};
  for (const BenchmarkWriterFormat& w : benchmark_writer_formats()) outputs.emplace_back(w.file_name);
  for (const std::string& name : outputs) {
    const fs::path path = out_dir / name;
    if (std::find(written.begin(), written.end(), path.string()) != written.end()) continue;
    std::error_code ec;
    if (fs::is_regular_file(path, ec) && fs::remove(path, ec) && notes)
      *notes << "servesim run: note: removed " << path.string()
             << ", left by an earlier run: this run's outputs do not include it\n";
  }
}

}  // namespace

RunFilesOutcome run_to_files(const Scenario& scenario, const RunFilesOptions& options) {
  check_replicates(options.replicates, "replicates");
  std::optional<Simulation> simulation;
  try {
    simulation.emplace(scenario.seed, scenario.stop, scenario.workload, scenario.cluster);
  } catch (const ConfigError& e) {
    if (!e.file().empty()) throw;
    throw ConfigError(scenario.source_file, e.line(), e.key(), e.message());
  }
  const fs::path out_dir(options.out_dir);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw ConfigError(options.out_dir, 0, "--out", "cannot create the output folder: " + ec.message());

  std::vector<std::string> class_names, pool_names;
  for (const auto& c : scenario.workload) class_names.push_back(c.name);
  for (const auto& p : scenario.cluster.pools) pool_names.push_back(p.name);

  std::optional<PartialFile> csv_file;
  std::optional<RequestsCsvWriter> csv;
  if (scenario.outputs.requests_csv) {
    csv_file.emplace((out_dir / "requests.csv").string(), "--out");
    bool kv_tiers = false;
    for (const auto& p : scenario.cluster.pools) kv_tiers = kv_tiers || p.engine.kv_offload.enabled();
    csv.emplace(csv_file->partial_path(), class_names, pool_names, kv_tiers);
  }
  std::ostream null_stream(nullptr);
  RunReports reports(*simulation, scenario, out_dir, options.progress != nullptr,
                     options.progress ? *options.progress : null_stream);
  const std::atomic<bool>* interrupt = options.interrupt;
  // The checker, where asked for, sees each record before it is written.
  std::optional<InvariantChecker> checker;
  if (options.check_invariants) checker.emplace(*simulation);
  simulation->add_request_sink([&](const RequestRecord& r) {
    if (interrupt && interrupt->load(std::memory_order_relaxed)) throw RunInterrupted();
    reports.on_request(r);
  });
  // Formatting the rows is a third of a light run's time: a long run does it on its
  // metrics' worker thread, in record order (Simulation::add_record_writer).
  if (csv) simulation->add_record_writer([&csv](const RequestRecord& r) { csv->write(r); });

  RunFilesOutcome outcome;
  const auto wall_start = std::chrono::steady_clock::now();
  outcome.result = simulation->run();
  describe_deployment(outcome.result.summary, scenario);
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  reports.end_progress();

  if (checker) {
    checker->check_end(outcome.result);
    outcome.invariant_steps = checker->figures().steps;
    if (!checker->ok()) {  // a simulator bug: no result file may look trustworthy
      outcome.invariants_ok = false;
      outcome.invariant_report = checker->report();
      return outcome;
    }
  }
  if (csv) {
    csv->close();
    csv_file->commit();
  }
  reports.commit(outcome.result);
  if (options.replicates >= 2) outcome.intervals = run_replicates(scenario, outcome.result.summary, options.replicates);
  write_file_atomically((out_dir / "summary.json").string(), "--out", [&](std::ostream& f) {
    write_summary_json(outcome.result.summary, f, outcome.intervals ? &*outcome.intervals : nullptr);
  });
  outcome.written.push_back((out_dir / "summary.json").string());
  if (csv) outcome.written.push_back((out_dir / "requests.csv").string());
  for (const auto& path : reports.written()) outcome.written.push_back(path);
  if (scenario.outputs.html) {
    // What was simulated, for the page's header: `servesim report` reads it back from the folder.
    const std::string context_path = (out_dir / "run_context.json").string();
    write_file_atomically(context_path, "--out", [&](std::ostream& f) { f << scenario_context(scenario).dump(2) << '\n'; });
    outcome.written.push_back(context_path);
    const std::string page = html_report(options.out_dir);
    const std::string path = (out_dir / "report.html").string();
    write_file_atomically(path, "--out", [&](std::ostream& f) { f << page; });
    outcome.written.push_back(path);
  }
  remove_stale_outputs(out_dir, outcome.written, options.notes);
  return outcome;
}

}  // namespace servesim
