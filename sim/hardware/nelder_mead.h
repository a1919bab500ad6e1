#pragma once
// A small, deterministic Nelder-Mead simplex minimiser (Nelder & Mead 1965, with the
// standard coefficients: reflection 1, expansion 2, contraction 1/2, shrink 1/2), for
// calibration's handful of parameters. Unconstrained: callers map bounded parameters
// onto the real line themselves.
#include <functional>
#include <string>
#include <vector>

namespace servesim {

struct NelderMeadResult {
  std::vector<double> x;
  double value = 0;
  int evaluations = 0;
};

// Minimises f from `start`, with an initial simplex of `step` along each axis. Stops after
// `max_evaluations` or when the simplex's values agree within `tolerance` (relative) and
// its points within `tolerance` (absolute).
NelderMeadResult nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                             std::vector<double> start, double step = 0.5,
                             int max_evaluations = 4000, double tolerance = 1e-10);

// Bounded parameters on the real line: x maps to lo..hi through a logistic in log space
// (every real x is a valid value, the middle x = 0 is the geometric mean), and back.
// REQUIRES: 0 < lo < hi.
double bounded_from_real(double x, double lo, double hi);
double real_from_bounded(double value, double lo, double hi);  // value clamped into [lo, hi]

// The best of nelder_mead from each of `starts` and from `random_starts` more points drawn
// uniformly in [-2, 2] per axis (a seeded stream named `stream`, so the same fit is the
// same), each run restarted twice from its end point at step 0.25 (a restart rebuilds a
// collapsed simplex). REQUIRES: starts non-empty, all of one dimension.
NelderMeadResult nelder_mead_multistart(const std::function<double(const std::vector<double>&)>& f,
                                        std::vector<std::vector<double>> starts, int random_starts,
                                        const std::string& stream, int max_evaluations);

}  // namespace servesim
