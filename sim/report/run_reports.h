#pragma once
// The files `servesim run` writes as the run goes besides requests.csv — timeseries.csv
// (outputs.timeseries), trace.json (outputs.chrome_trace) and the run in benchmark tools'
// schemas (outputs.bench_format) — and the progress line on a terminal. Each file goes to
// PATH.partial and is renamed only by commit(), so an interrupted run never leaves a file
// that looks complete.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/report/atomic_write.h"
#include "sim/metrics/timeseries.h"
#include "sim/report/benchmark/benchmark_writer.h"
#include "sim/report/chrome_trace.h"
#include "sim/scenario/scenario.h"

namespace servesim {

class RunReports {
 public:
  // Opens the files the scenario asks for and adds one step observer to every replica
  // when timeseries.csv or trace.json is asked for (and, for timeseries.csv, one state
  // observer). `progress`: print a progress line on
  // `err` (a terminal), as requests finish (on_request).
  // REQUIRES: `sim` outlives this object and run() has not been called yet.
  RunReports(Simulation& sim, const Scenario& scenario, const std::filesystem::path& out_dir, bool progress,
             std::ostream& err);
  ~RunReports();

  // Every request record, as it leaves.
  void on_request(const RequestRecord& r);
  // After the run: closes the files and renames them into place; the benchmark files are
  // written whole here, described by bench_run_info(scenario, result).
  void commit(const RunResult& result);
  // Clears the progress line, if one was printed.
  void end_progress();
  // The paths commit() wrote.
  const std::vector<std::string>& written() const { return written_; }

 private:
  struct File {
    PartialFile file;
    std::ofstream stream;  // declared after `file`: closed before the partial file goes
  };
  File open(const std::filesystem::path& path);
  void close(File& f);
  void on_step(const StepSample& s);
  void maybe_print_progress(Tick sim_ns);

  std::ostream& err_;
  std::optional<File> timeseries_file_, trace_file_;
  std::unique_ptr<TimeseriesWriter> timeseries_;
  std::unique_ptr<ChromeTraceWriter> trace_;
  const Scenario& scenario_;
  struct BenchFile {
    std::string path;
    std::unique_ptr<BenchmarkWriter> writer;
  };
  std::vector<BenchFile> bench_files_;
  bool progress_ = false;
  bool progress_shown_ = false;
  std::int64_t requests_done_ = 0;
  std::chrono::steady_clock::time_point wall_start_, last_print_;
  std::vector<std::string> written_;
};

// What a benchmark file says about the run: the scenario's name and seed, the first pool's
// model, the simulated span (result.end_ns) and, for a scenario of one class, the load as
// vllm bench serve would name it: an open loop's rate (poisson: burstiness 1; gamma:
// burstiness 1/cv^2; a constant or staged rate is not one vllm can express, so none), or a
// closed loop's users as max_concurrency.
BenchmarkRunInfo bench_run_info(const Scenario& scenario, const RunResult& result);

// Whether `err` is the process's stderr and that is a terminal (the progress line is for
// people watching, never for logs or pipes).
bool stderr_is_terminal(const std::ostream& err);

}  // namespace servesim
