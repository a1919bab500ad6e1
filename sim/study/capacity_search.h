#pragma once
// The search behind `servesim capacity`: the highest value x of a load knob (an arrival
// rate, a rate multiplier, a concurrency) at which a run is still feasible, assuming
// feasibility only gets lost as x grows. Bracketing by doubling (or halving) from a start
// value, then bisection until the bracket is narrower than the tolerance (docs/sweeps.md).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace servesim {

struct CapacityTrial {
  double x = 0;
  bool feasible = false;
  std::string reason;  // why not feasible (or a note when it is)
  // Infeasible for a reason no lower value changes (requests too long for the model at any
  // rate): the search stops going down.
  bool fails_at_any_load = false;
};

struct CapacitySearchParams {
  double start = 1;                // first value tried; > 0
  std::optional<double> max_x;     // never try above this
  double tolerance = 0.01;         // stop when (hi - lo) <= tolerance * lo
  bool integer = false;            // x is a whole number (>= 1): stop when hi - lo <= 1
  int max_doublings = 40;
  int max_halvings = 10;
};

struct CapacitySearchResult {
  std::vector<CapacityTrial> trials;  // in the order they ran
  std::optional<std::size_t> best;    // index of the highest feasible trial
  std::optional<double> lowest_infeasible;
  bool capped = false;                // feasible at max_x (or after max_doublings): a lower bound
  bool fails_at_any_load = false;     // stopped going down at a trial that fails at any value
};

// `evaluate(x)` runs one trial; its x is overwritten with the value asked for.
CapacitySearchResult search_capacity(const CapacitySearchParams& params,
                                     const std::function<CapacityTrial(double)>& evaluate);

}  // namespace servesim
