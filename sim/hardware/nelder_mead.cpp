#include "sim/hardware/nelder_mead.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/assert.h"
#include "sim/core/rng.h"

namespace servesim {

double bounded_from_real(double x, double lo, double hi) {
  const double a = std::log(lo), b = std::log(hi);
  return std::exp(a + (1.0 / (1.0 + std::exp(-std::clamp(x, -50.0, 50.0)))) * (b - a));
}

double real_from_bounded(double value, double lo, double hi) {
  const double a = std::log(lo), b = std::log(hi);
  const double s = std::clamp((std::log(std::clamp(value, lo, hi)) - a) / (b - a), 1e-6, 1 - 1e-6);
  return std::log(s / (1 - s));
}

NelderMeadResult nelder_mead_multistart(const std::function<double(const std::vector<double>&)>& f,
                                        std::vector<std::vector<double>> starts, int random_starts,
                                        const std::string& stream, int max_evaluations) {
  SS_ASSERT(!starts.empty(), "a multistart fit needs a first point to size the others");
  Rng rng(1, stream);
  for (int s = 0; s < random_starts; ++s) {
    std::vector<double> x(starts.front().size());
    for (double& v : x) v = -2.0 + 4.0 * rng.uniform01();
    starts.push_back(x);
  }
  NelderMeadResult best;
  best.value = HUGE_VAL;
  for (const auto& x0 : starts) {
    NelderMeadResult r = nelder_mead(f, x0, 0.5, max_evaluations);
    for (int again = 0; again < 2; ++again) r = nelder_mead(f, r.x, 0.25, max_evaluations);
    if (r.value < best.value) best = r;
  }
  return best;
}

NelderMeadResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                             std::vector<double> start, double step, int max_evaluations,
                             double tolerance) {
  const std::size_t n = start.size();
  SS_ASSERT(n > 0, "nothing to minimise");
  NelderMeadResult r;
  // NaN (a model that cannot be evaluated there) counts as worse than anything.
  const auto eval = [&](const std::vector<double>& x) {
    ++r.evaluations;
    const double v = f(x);
    return std::isnan(v) ? HUGE_VAL : v;
  };
  std::vector<std::vector<double>> pts(n + 1, start);
  for (std::size_t i = 0; i < n; ++i) pts[i + 1][i] += step;
  std::vector<double> vals(n + 1);
  for (std::size_t i = 0; i <= n; ++i) vals[i] = eval(pts[i]);

  std::vector<std::size_t> order(n + 1);
  const auto along = [&](const std::vector<double>& from, const std::vector<double>& centroid,
                         double t) {
    std::vector<double> x(n);
    for (std::size_t j = 0; j < n; ++j) x[j] = centroid[j] + t * (from[j] - centroid[j]);
    return x;
  };
  while (r.evaluations < max_evaluations) {
    std::iota(order.begin(), order.end(), 0);
    // Stable, so equal values keep their order and the run is reproducible.
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return vals[a] < vals[b]; });
    std::vector<std::vector<double>> p2;
    std::vector<double> v2;
    for (std::size_t i : order) {
      p2.push_back(pts[i]);
      v2.push_back(vals[i]);
    }
    pts.swap(p2);
    vals.swap(v2);

    double spread = 0;
    for (std::size_t i = 1; i <= n; ++i)
      for (std::size_t j = 0; j < n; ++j) spread = std::max(spread, std::fabs(pts[i][j] - pts[0][j]));
    if (std::fabs(vals[n] - vals[0]) <= tolerance * (std::fabs(vals[0]) + 1e-300) &&
        spread <= tolerance) {
      break;
    }

    std::vector<double> centroid(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) centroid[j] += pts[i][j] / static_cast<double>(n);

    const std::vector<double> reflected = along(pts[n], centroid, -1.0);
    const double fr = eval(reflected);
    if (fr < vals[0]) {
      const std::vector<double> expanded = along(pts[n], centroid, -2.0);
      const double fe = eval(expanded);
      if (fe < fr) {
        pts[n] = expanded;
        vals[n] = fe;
      } else {
        pts[n] = reflected;
        vals[n] = fr;
      }
    } else if (fr < vals[n - 1]) {
      pts[n] = reflected;
      vals[n] = fr;
    } else {
      // Contract towards the better of the worst point and its reflection.
      const bool outside = fr < vals[n];
      const std::vector<double> contracted = along(outside ? reflected : pts[n], centroid, 0.5);
      const double fc = eval(contracted);
      if (fc < std::min(fr, vals[n])) {
        pts[n] = contracted;
        vals[n] = fc;
      } else {
        for (std::size_t i = 1; i <= n; ++i) {
          for (std::size_t j = 0; j < n; ++j) pts[i][j] = pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]);
          vals[i] = eval(pts[i]);
        }
      }
    }
  }
  const auto best = std::min_element(vals.begin(), vals.end()) - vals.begin();
  r.x = pts[best];
  r.value = vals[best];
  return r;
}

}  // namespace servesim
