#include "sim/study/capacity_search.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

CapacitySearchResult search_capacity(const CapacitySearchParams& p,
                                     const std::function<CapacityTrial(double)>& evaluate) {
  SS_ASSERT(p.start > 0 && p.tolerance > 0, "a positive start and tolerance");
  CapacitySearchResult r;
  std::optional<double> lo, hi;  // highest feasible, lowest infeasible
  auto run = [&](double x) {
    CapacityTrial t = evaluate(x);
    t.x = x;
    r.trials.push_back(t);
    if (t.feasible) {
      if (!lo || x > *lo) {
        lo = x;
        r.best = r.trials.size() - 1;
      }
    } else if (!hi || x < *hi) {
      hi = x;
    }
    if (!t.feasible && t.fails_at_any_load) r.fails_at_any_load = true;
    return t.feasible;
  };
  auto cap = [&](double x) { return p.max_x ? std::min(x, *p.max_x) : x; };

  double x = cap(p.integer ? std::max(1.0, std::round(p.start)) : p.start);
  if (run(x)) {
    // Up until infeasible, or the cap.
    for (int i = 0; i < p.max_doublings && !hi; ++i) {
      const double next = cap(p.integer ? std::max(2 * x, x + 1) : 2 * x);
      if (next <= x) break;  // already at the cap
      x = next;
      run(x);
    }
    if (!hi) {
      r.capped = true;
      return r;
    }
  } else {
    // Down until feasible; a knob that fails at 1/2^max_halvings of its start never will.
    for (int i = 0; i < p.max_halvings && !lo && !r.fails_at_any_load; ++i) {
      const double next = p.integer ? std::floor(x / 2) : x / 2;
      if (next < (p.integer ? 1.0 : 0.0) || next == x) break;
      x = next;
      run(x);
    }
    if (!lo) {
      r.lowest_infeasible = hi;
      return r;
    }
  }
  // Bisection between the highest feasible and the lowest infeasible value.
  while (p.integer ? *hi - *lo > 1 : *hi - *lo > p.tolerance * *lo) {
    const double mid = p.integer ? std::floor((*lo + *hi) / 2) : (*lo + *hi) / 2;
    run(mid);
  }
  r.lowest_infeasible = hi;
  return r;
}

}  // namespace servesim
