#include "sim/study/replay_study.h"

#include <cmath>

#include "sim/scenario/percent.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace servesim {

ReplayInputs read_replay_inputs(const ReplayRequest& request) {
  std::optional<double> tolerance;
  if (!request.tolerance.empty()) tolerance = parse_percent_or_throw(request.tolerance, "--tolerance");
  BenchmarkRun bench = read_benchmark(request.bench_path, request.format);
  return {std::move(bench), load_deployment(request.scenario_path, request.sets), tolerance};
}

ReplayStudy run_replay(const BenchmarkReplay& replay, std::optional<double> tolerance) {
  ReplayStudy study;
  study.simulated = replay.simulate();
  study.sets = replay.compare_all(study.simulated);
  if (tolerance) study.beyond_tolerance = count_beyond(study.sets, *tolerance);
  return study;
}

int count_beyond(const std::vector<ReplaySet>& sets, double tolerance) {
  int beyond = 0;
  for (const ReplaySet& set : sets) {
    for (const FigureComparison& row : set.rows) beyond += std::isfinite(row.error) && std::fabs(row.error) > tolerance;
  }
  return beyond;
}

}  // namespace servesim
