#include "sim/study/replay_study.h"

#include <cmath>

namespace servesim {

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
