#pragma once
// A small, deterministic Nelder-Mead simplex minimiser (Nelder & Mead 1965, with the
// standard coefficients: reflection 1, expansion 2, contraction 1/2, shrink 1/2), for
// calibration's handful of parameters. Unconstrained: callers map bounded parameters
// onto the real line themselves.
#include <functional>
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

}  // namespace servesim
