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

namespace {

// The n + 1 points of the simplex and their values; best first once sorted.
struct Simplex {
  std::vector<std::vector<double>> pts;
  std::vector<double> vals;
};

// Orders the points best first. Stable, so equal values keep their order and the run is
// reproducible.
void sort_simplex(Simplex& s) {
  std::vector<std::size_t> order(s.vals.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.vals[a] < s.vals[b]; });
  std::vector<std::vector<double>> p2;
  std::vector<double> v2;
  for (std::size_t i : order) {
    p2.push_back(s.pts[i]);
    v2.push_back(s.vals[i]);
  }
  s.pts.swap(p2);
  s.vals.swap(v2);
}

// A sorted simplex whose values agree within `tolerance` (relative) and whose points
// agree within `tolerance` (absolute).
bool simplex_converged(const Simplex& s, double tolerance) {
  const std::size_t n = s.pts.size() - 1;
  double spread = 0;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 0; j < n; ++j) spread = std::max(spread, std::fabs(s.pts[i][j] - s.pts[0][j]));
  return std::fabs(s.vals[n] - s.vals[0]) <= tolerance * (std::fabs(s.vals[0]) + 1e-300) && spread <= tolerance;
}

// The centroid of every point but the worst (the last, once sorted).
std::vector<double> centroid_but_worst(const Simplex& s) {
  const std::size_t n = s.pts.size() - 1;
  std::vector<double> centroid(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) centroid[j] += s.pts[i][j] / static_cast<double>(n);
  return centroid;
}

// The point t of the way from the centroid to `from` (t = -1 reflects `from` through it).
std::vector<double> along_line(const std::vector<double>& from, const std::vector<double>& centroid, double t) {
  std::vector<double> x(from.size());
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = centroid[j] + t * (from[j] - centroid[j]);
  return x;
}

// One move of a sorted simplex: the worst point is reflected through the centroid of the
// others, and the reflection expanded, kept, or contracted; when even the contraction is
// no better, every point shrinks halfway towards the best.
template <class Eval>
void nelder_mead_move(Simplex& s, const Eval& eval) {
  const std::size_t n = s.pts.size() - 1;
  const std::vector<double> centroid = centroid_but_worst(s);
  const std::vector<double> reflected = along_line(s.pts[n], centroid, -1.0);
  const double fr = eval(reflected);
  if (fr < s.vals[0]) {
    const std::vector<double> expanded = along_line(s.pts[n], centroid, -2.0);
    const double fe = eval(expanded);
    if (fe < fr) {
      s.pts[n] = expanded;
      s.vals[n] = fe;
    } else {
      s.pts[n] = reflected;
      s.vals[n] = fr;
    }
  } else if (fr < s.vals[n - 1]) {
    s.pts[n] = reflected;
    s.vals[n] = fr;
  } else {
    // Contract towards the better of the worst point and its reflection.
    const bool outside = fr < s.vals[n];
    const std::vector<double> contracted = along_line(outside ? reflected : s.pts[n], centroid, 0.5);
    const double fc = eval(contracted);
    if (fc < std::min(fr, s.vals[n])) {
      s.pts[n] = contracted;
      s.vals[n] = fc;
    } else {
      for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 0; j < n; ++j) s.pts[i][j] = s.pts[0][j] + 0.5 * (s.pts[i][j] - s.pts[0][j]);
        s.vals[i] = eval(s.pts[i]);
      }
    }
  }
}

}  // namespace

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
  Simplex s{std::vector<std::vector<double>>(n + 1, start), std::vector<double>(n + 1)};
  for (std::size_t i = 0; i < n; ++i) s.pts[i + 1][i] += step;
  for (std::size_t i = 0; i <= n; ++i) s.vals[i] = eval(s.pts[i]);
  while (r.evaluations < max_evaluations) {
    sort_simplex(s);
    if (simplex_converged(s, tolerance)) break;
    nelder_mead_move(s, eval);
  }
  const auto best = std::min_element(s.vals.begin(), s.vals.end()) - s.vals.begin();
  r.x = s.pts[best];
  r.value = s.vals[best];
  return r;
}

}  // namespace servesim
