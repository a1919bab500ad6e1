#pragma once
// Replaying a real benchmark run through a scenario's deployment: the requests the tool
// sent (the succeeded ones: a failed request's output length is unknown) go through the
// simulator as the scenario's first workload class, and the simulated and the measured
// figures are put side by side, for the whole run, per load stage, and for any subset of
// the requests (calibration fits on some and checks on the others).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/engine_config.h"
#include "sim/scenario/scenario.h"
#include "sim/study/benchmark_figures.h"
#include "sim/workload/benchmark/benchmark_run.h"

namespace servesim {

// One simulated replay: each replayed request's latencies, in benchmark order.
struct SimulatedReplay {
  std::vector<std::int64_t> arrival_ns;   // per replayed request
  std::vector<std::int64_t> finish_ns;    // -1: not completed
  std::vector<RequestLatency> latency;    // ttft/e2el -1 when not completed
  std::optional<LatencyFigures> itl;      // every simulated gap (the run's ITL sketch)
  std::int64_t completed = 0;
  std::int64_t rejected = 0;
  std::int64_t unfinished = 0;
  bool saturated = false;
  std::string saturation_note;  // why saturated (summary.json's saturation_note); "" when not
};

// A named set of the benchmark's requests and the figures of both sides over it.
struct ReplaySet {
  std::string name;
  std::int64_t requests = 0;
  BenchmarkFigures measured;
  BenchmarkFigures simulated;
  std::vector<FigureComparison> rows;
};

class BenchmarkReplay {
 public:
  // `base`: the deployment (its pools, engines, router, seed); its workload and stop are
  // replaced by the benchmark's requests. Throws ConfigError for a benchmark with no
  // succeeded request.
  BenchmarkReplay(Scenario base, BenchmarkRun benchmark);

  const BenchmarkRun& benchmark() const { return benchmark_; }
  const Scenario& scenario() const { return scenario_; }
  std::int64_t failed_requests() const { return failed_; }
  // Indexes (into benchmark().requests) of the replayed, i.e. succeeded, requests.
  const std::vector<std::size_t>& replayed() const { return replayed_; }

  // Runs the replay. `overheads`: if given, every pool's engine overheads are replaced by
  // it (calibration); otherwise the scenario's own.
  SimulatedReplay simulate(const std::optional<EngineOverheads>& overheads = std::nullopt) const;

  // Figures of both sides over the replayed requests whose positions (into replayed())
  // are `members`; the simulated ITL only when the set is every request (`whole_run`).
  ReplaySet compare(const std::string& name, const std::vector<std::size_t>& members,
                    const SimulatedReplay& simulated, bool whole_run) const;
  // The whole run, then each stage when there are several.
  std::vector<ReplaySet> compare_all(const SimulatedReplay& simulated) const;

 private:
  double measured_span_s(const std::vector<std::size_t>& members, bool whole_stage, int stage) const;

  Scenario scenario_;
  BenchmarkRun benchmark_;
  std::vector<std::size_t> replayed_;
  std::int64_t failed_ = 0;
};

}  // namespace servesim
