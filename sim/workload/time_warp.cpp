#include "sim/workload/time_warp.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

TimeWarp::TimeWarp(std::vector<Point> points) : points_(std::move(points)) {
  SS_ASSERT(!points_.empty() && points_.front().time_s == 0, "a time warp starts at trace time 0");
  Tick warped = 0;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    SS_ASSERT(points_[i].scale > 0, "a rate scale is > 0");
    start_ns_.push_back(ticks_from_seconds(points_[i].time_s));
    if (i > 0) {
      SS_ASSERT(start_ns_[i] > start_ns_[i - 1], "a time warp's times rise");
      warped += std::llround(static_cast<double>(start_ns_[i] - start_ns_[i - 1]) / points_[i - 1].scale);
    }
    warped_start_ns_.push_back(warped);
  }
}

Tick TimeWarp::warp(Tick trace_ns) const {
  // The last point at or before the time; integer ns, so a scale of 1 changes nothing.
  const auto after = std::upper_bound(start_ns_.begin(), start_ns_.end(), trace_ns);
  const auto i = static_cast<std::size_t>(after - start_ns_.begin()) - 1;
  return warped_start_ns_[i] + std::llround(static_cast<double>(trace_ns - start_ns_[i]) / points_[i].scale);
}

}  // namespace servesim
