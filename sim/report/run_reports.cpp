#include "sim/report/run_reports.h"

#include <unistd.h>

#include <cstdio>
#include <iomanip>
#include <iostream>

#include "sim/cluster/step_sampler.h"
#include "sim/core/errors.h"

namespace fs = std::filesystem;

namespace servesim {
namespace {

// At most this many progress lines per wall second; the clock is read every
// kRequestsPerClockRead requests so that a fast run pays almost nothing for it. (Driven by
// requests, not steps: a step observer would make every replica visit every decode,
// sim/engine/lazy_decodes.h.)
constexpr auto kProgressPeriod = std::chrono::milliseconds(250);
constexpr std::int64_t kRequestsPerClockRead = 64;

}  // namespace

bool stderr_is_terminal(const std::ostream& err) { return &err == &std::cerr && isatty(fileno(stderr)) == 1; }

RunReports::RunReports(Simulation& sim, const Scenario& scenario, const fs::path& out_dir, bool progress,
                       std::ostream& err)
    : err_(err), scenario_(scenario), progress_(progress) {
  std::vector<std::string> class_names, pool_names;
  for (const auto& c : scenario.workload) class_names.push_back(c.name);
  for (const auto& p : scenario.cluster.pools) pool_names.push_back(p.name);
  const std::vector<int> replicas = replicas_per_pool(sim);
  if (scenario.outputs.timeseries) {
    timeseries_file_.emplace(open(out_dir / "timeseries.csv"));
    bool autoscaled = false;
    for (const auto& pool : sim.pools()) autoscaled = autoscaled || pool->autoscaler() != nullptr;
    // With cluster.energy, each row's power: a replica's GPUs at idle while it is on.
    std::vector<double> idle_w_per_replica;
    if (scenario.cluster.energy)
      for (const auto& p : scenario.cluster.pools) idle_w_per_replica.push_back(p.hardware.idle_power_w * p.deployment.gpus());
    timeseries_ = std::make_unique<TimeseriesWriter>(timeseries_file_->stream, scenario.outputs.timeseries_interval_ns,
                                                     pool_names, replicas, autoscaled, idle_w_per_replica);
    // Each autoscaled pool's fleet as it changes (docs/metrics.md, timeseries.csv).
    for (int p = 0; p < static_cast<int>(sim.pools().size()); ++p) {
      const Autoscaler* a = sim.pools()[static_cast<std::size_t>(p)]->autoscaler();
      if (!a) continue;
      timeseries_->on_fleet(p, 0, a->active(), a->paid());
      sim.pools()[static_cast<std::size_t>(p)]->autoscaler()->add_change_observer(
          [this, p, a](Tick now_ns) { timeseries_->on_fleet(p, now_ns, a->active(), a->paid()); });
      if (!idle_w_per_replica.empty()) {
        // Replicas off draw nothing: each one's phase from t = 0 and as it changes (the
        // writer ignores a replica whose state did not).
        const std::size_t n = sim.pools()[static_cast<std::size_t>(p)]->replicas().size();
        const auto note_power = [this, p, a, n](Tick now_ns) {
          for (std::size_t r = 0; r < n; ++r)
            timeseries_->on_power(p, static_cast<int>(r), now_ns, a->phase(r) != ReplicaPhase::off);
        };
        note_power(0);
        sim.pools()[static_cast<std::size_t>(p)]->autoscaler()->add_change_observer(note_power);
      }
    }
    // Between steps too: what idle replicas hold, and requests that queue while a step runs.
    add_gauge_sampler(sim, [this](int pool, int replica, Tick now_ns, const ReplicaGauges& g) {
      timeseries_->on_gauges(pool, replica, now_ns, g);
    });
  }
  if (scenario.outputs.chrome_trace) {
    trace_file_.emplace(open(out_dir / "trace.json"));
    trace_ = std::make_unique<ChromeTraceWriter>(trace_file_->stream, class_names, pool_names, replicas);
  }
  for (const std::string& name : scenario.outputs.bench_formats) {
    const BenchmarkWriterFormat* format = find_benchmark_writer(name);
    if (format == nullptr) throw ConfigError("", 0, "outputs.bench_format", "unknown benchmark format '" + name + "'");
    const std::string path = (out_dir / format->file_name).string();
    bench_files_.push_back({path, format->make(path)});
  }
  wall_start_ = last_print_ = std::chrono::steady_clock::now();
  if (timeseries_ || trace_)
    add_step_sampler(sim, [this](const StepSample& s) { on_step(s); }, scenario.cluster.energy.has_value());
}

// Files not committed (an error or a failed check) remove their partial files as they go.
RunReports::~RunReports() = default;

RunReports::File RunReports::open(const fs::path& path) {
  File f{PartialFile(path.string(), "--out"), std::ofstream()};
  f.stream.open(f.file.partial_path());
  if (!f.stream) throw ConfigError(f.file.partial_path(), 0, "--out", "cannot open the file for writing");
  return f;
}

void RunReports::close(File& f) {
  f.stream.close();
  if (!f.stream) throw ConfigError(f.file.partial_path(), 0, "--out", "cannot write the file (disk full?)");
  f.file.commit();
  written_.push_back(f.file.path());
}

void RunReports::on_step(const StepSample& s) {
  if (timeseries_) timeseries_->on_step(s);
  if (trace_) trace_->on_step(s);
}

void RunReports::on_request(const RequestRecord& r) {
  ++requests_done_;
  if (trace_) trace_->on_request(r);
  for (BenchFile& f : bench_files_) f.writer->add(r);
  if (progress_ && requests_done_ % kRequestsPerClockRead == 0)
    maybe_print_progress(r.finish_ns >= 0 ? r.finish_ns : r.arrival_ns);
}

void RunReports::maybe_print_progress(Tick sim_ns) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_print_ < kProgressPeriod) return;
  last_print_ = now;
  const double wall_s = std::chrono::duration<double>(now - wall_start_).count();
  const double sim_s = static_cast<double>(sim_ns) * 1e-9;
  err_ << "\r\033[Kservesim: simulated " << std::fixed << std::setprecision(1) << sim_s << " s, " << requests_done_
       << " requests done, " << std::setprecision(0) << static_cast<double>(requests_done_) / wall_s
       << " req/s, " << std::setprecision(1) << sim_s / wall_s << "x real time" << std::defaultfloat << std::flush;
  progress_shown_ = true;
}

void RunReports::end_progress() {
  if (!progress_shown_) return;
  err_ << "\r\033[K" << std::flush;
  progress_shown_ = false;
}

void RunReports::commit(const RunResult& result) {
  end_progress();
  const BenchmarkRunInfo info = bench_run_info(scenario_, result);
  for (BenchFile& f : bench_files_) {
    f.writer->finish(info);
    written_.push_back(f.path);
  }
  bench_files_.clear();
  if (timeseries_) {
    timeseries_->finish();
    close(*timeseries_file_);
    timeseries_file_.reset();
  }
  if (trace_) {
    trace_->finish();
    close(*trace_file_);
    trace_file_.reset();
  }
}

BenchmarkRunInfo bench_run_info(const Scenario& scenario, const RunResult& result) {
  BenchmarkRunInfo info;
  info.scenario_name = scenario.name;
  if (!scenario.cluster.pools.empty()) info.model = scenario.cluster.pools.front().model.name;
  info.seed = scenario.seed;
  info.duration_ns = result.end_ns;
  if (scenario.workload.size() == 1 && scenario.workload.front().arrival) {
    const ArrivalSpec& arrival = *scenario.workload.front().arrival;
    // A staged open loop has no single rate (rate_per_s stays 0).
    const bool open_rate = arrival.rate_per_s > 0 && (arrival.process == ArrivalSpec::Process::poisson ||
                                                      arrival.process == ArrivalSpec::Process::gamma);
    if (open_rate) {
      info.request_rate_per_s = arrival.rate_per_s;
      if (arrival.process == ArrivalSpec::Process::gamma) info.burstiness = 1.0 / (arrival.cv * arrival.cv);
    } else if (arrival.process == ArrivalSpec::Process::closed) {
      info.max_concurrency = arrival.concurrency;
    }
  }
  return info;
}

}  // namespace servesim
