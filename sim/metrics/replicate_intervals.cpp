#include "sim/metrics/replicate_intervals.h"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include "sim/core/assert.h"

namespace servesim {

const FigureInterval* ReplicateIntervals::find(const std::string& field) const {
  for (const auto& [name, interval] : figures)
    if (name == field) return &interval;
  return nullptr;
}

double student_t95(int dof) {
  SS_ASSERT(dof >= 1, "Student's t needs a degree of freedom");
  return boost::math::quantile(boost::math::students_t(static_cast<double>(dof)), 0.975);
}

FigureInterval mean_interval(const std::vector<double>& values) {
  SS_ASSERT(values.size() >= 2, "an interval needs two replicates or more");
  const double n = static_cast<double>(values.size());
  double sum = 0;
  bool same = true;
  for (double v : values) {
    sum += v;
    same = same && v == values.front();
  }
  if (same) return {values.front(), values.front(), values.front()};
  const double mean = sum / n;
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  const double half = student_t95(static_cast<int>(values.size()) - 1) * std::sqrt(squares / (n - 1) / n);
  return {mean, mean - half, mean + half};
}

FigureInterval share_interval(int successes, int trials) {
  SS_ASSERT(trials >= 1 && successes >= 0 && successes <= trials, "a share of trials");
  const double n = trials, p = successes / n;
  const double z = 1.959963984540054;  // the two-sided 95% normal quantile
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z / (1 + z * z / n) * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  // At 0 or K of K the bound on that side is exactly 0 or 1; the formula leaves rounding.
  return {p, successes == 0 ? 0.0 : centre - half, successes == trials ? 1.0 : centre + half};
}

ReplicateIntervals replicate_intervals(const std::vector<RunSummary>& runs, const std::vector<std::uint64_t>& seeds) {
  SS_ASSERT(runs.size() >= 2 && runs.size() == seeds.size(), "an interval needs two replicates or more");
  ReplicateIntervals out;
  out.n = static_cast<int>(runs.size());
  out.seeds = seeds;
  for (const auto& field : runs.front().overall.fields) {
    const std::string& name = field.first;
    std::vector<double> values;
    for (const RunSummary& r : runs) values.push_back(r.overall.get(name));
    if (std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); }))
      out.figures.push_back({name, mean_interval(values)});
  }
  return out;
}

}  // namespace servesim
