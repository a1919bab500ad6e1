#pragma once
// Uncertainty of a run's figures from replicates: the same scenario run with K seeds, each
// figure of the overall summary block reported as the mean over the K runs with a 95%
// confidence interval of that mean (Student's t with K - 1 degrees of freedom: the runs are
// independent draws of the figure, whose spread the K values estimate). A p99 from 300
// requests then shows its width beside one from 300,000.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/metrics/summary.h"

namespace servesim {

struct FigureInterval {
  double mean = 0;
  double lo = 0;  // 95% interval of the mean
  double hi = 0;
};

struct ReplicateIntervals {
  int n = 0;
  std::vector<std::uint64_t> seeds;
  // Every field of the overall block that is a finite number in all K runs, in its order.
  std::vector<std::pair<std::string, FigureInterval>> figures;
  const FigureInterval* find(const std::string& field) const;
};

// The two-sided 95% quantile of Student's t with `dof` degrees of freedom (12.706 at 1,
// 1.96 as dof grows). REQUIRES: dof >= 1.
double student_t95(int dof);

// The mean of `values` with the 95% interval of that mean; equal values give exactly that
// value. REQUIRES: values.size() >= 2.
FigureInterval mean_interval(const std::vector<double>& values);

// The share `successes / trials` with its 95% Wilson score interval (Wilson 1927), which
// stays inside [0, 1] and is not empty at 0 or K successes of K: 10 of 10 is [0.72, 1].
// REQUIRES: 0 <= successes <= trials, trials >= 1.
FigureInterval share_interval(int successes, int trials);

// REQUIRES: runs.size() == seeds.size() >= 2.
ReplicateIntervals replicate_intervals(const std::vector<RunSummary>& runs, const std::vector<std::uint64_t>& seeds);

}  // namespace servesim
