#pragma once
// Whether a run sustains the load offered to it, measured on a window of the arrival span
// rather than over the whole run (whose drain dilutes the throughput): the second half of
// the span from the first arrival to the last, after the start-up transient. Over that
// window a stable system completes requests as fast as they arrive, only shifted by their
// latency; an overloaded one completes them at its service rate. So
//   served / offered = completions in the window / arrivals in the window
// is ~1 when the load is sustained and mu / lambda below it.
//
// The ratio is itself noisy: with Poisson arrivals of rate lambda and a mean latency W,
// the completions in the window are the arrivals of a window shifted by W, which differs
// from the window in two stretches of length W, so the ratio's relative standard deviation
// is about sqrt(2 lambda W) / (lambda T) for a window of length T. A run judges a
// tolerance `tol` only when 3 such deviations fit inside it and the latency is at most half
// the window; otherwise it is too short, and `needed_scale` says by how much to lengthen it.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/metrics/request_record.h"

namespace servesim {

struct SustainedRate {
  double window_s = 0;
  std::int64_t arrivals = 0;     // in the window
  std::int64_t completions = 0;  // finishing in the window
  double offered_per_s = 0;      // arrivals / window
  double served_per_s = 0;       // completions / window
  double mean_latency_s = 0;     // end-to-end, of the requests completed in the window
  double noise = 0;              // relative standard deviation of served / offered
  bool long_enough = false;
  double needed_scale = 1;       // lengthen the run by this factor to judge `tolerance`
  std::string why_short;         // when !long_enough
  bool sustained(double tolerance) const { return served_per_s >= (1 - tolerance) * offered_per_s; }
};

class SustainedRateMeter {
 public:
  // Every request the run ends with: arrivals count unless rejected, completions only when
  // completed.
  void add(const RequestRecord& r);
  SustainedRate measure(double tolerance) const;

 private:
  std::vector<Tick> arrivals_ns_;
  std::vector<std::pair<Tick, Tick>> completed_;  // (arrival, finish)
};

}  // namespace servesim
