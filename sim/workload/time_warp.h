#pragma once
// A trace's own timestamps with its rate scaled over time (`trace: {rate_scale: ...}`,
// docs/workload.md): scale(u), piecewise constant over the trace's time u (after speedup),
// multiplies the trace's arrival rate at u, so an arrival at trace time t comes at
//     T(t) = integral from 0 to t of du / scale(u).
// A scale of 2 packs that stretch of the trace into half the time (twice the load), 0.5
// spreads it over twice the time. The order of the arrivals, their lengths and their
// prefixes stay the trace's own; only their times move.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/time.h"
#include "sim/workload/forwarding_source.h"

namespace servesim {

class TimeWarp {
 public:
  // The scale from time_s on (> 0), until the next point's time; the last for ever.
  using Point = RateScalePoint;
  // REQUIRES: points non-empty, the first at time 0, times rising, scales > 0.
  explicit TimeWarp(std::vector<Point> points);
  // T(t) for a trace time t >= 0, rounded to the nearest ns.
  Tick warp(Tick trace_ns) const;

 private:
  std::vector<Point> points_;
  std::vector<Tick> start_ns_;         // each point's trace time
  std::vector<Tick> warped_start_ns_;  // T at each point's time
};

// `inner`'s requests with their arrival times warped: the rest is the inner source's.
class WarpedSource final : public ForwardingSource {
 public:
  WarpedSource(std::unique_ptr<RequestSource> inner, TimeWarp warp)
      : ForwardingSource(std::move(inner)), warp_(std::move(warp)) {}
  std::optional<Tick> peek_arrival_ns() override {
    const std::optional<Tick> t = ForwardingSource::peek_arrival_ns();
    return t ? std::optional<Tick>(warp_.warp(*t)) : std::nullopt;
  }
  RequestSpec pop() override {
    RequestSpec request = ForwardingSource::pop();
    request.arrival_ns = warp_.warp(request.arrival_ns);
    return request;
  }

 private:
  TimeWarp warp_;
};

}  // namespace servesim
