// numpy's mean, population standard deviation and linear percentile (numpy_stats.h).
#include "sim/metrics/numpy_stats.h"

#include <cmath>
#include <cstddef>

#include "sim/core/assert.h"

namespace servesim {

double numpy_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double numpy_std(const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double mean = numpy_mean(values);
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size()));
}

double numpy_percentile(const std::vector<double>& sorted, double percent) {
  SS_ASSERT(percent >= 0 && percent <= 100, "percentile outside 0..100");
  if (sorted.empty()) return 0;
  const double rank = percent / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const auto above = static_cast<std::size_t>(std::ceil(rank));
  const double t = rank - static_cast<double>(below);
  const double a = sorted[below], b = sorted[above];
  // numpy's _lerp: from the nearer neighbour, so that t = 1 gives b exactly.
  return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t;
}

}  // namespace servesim
