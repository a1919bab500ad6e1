#include "sim/study/sustained_rate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace servesim {

void SustainedRateMeter::add(const RequestRecord& r) {
  // A rejected request is no load the cluster took on (the judgement counts rejections on
  // their own), so it is neither offered nor served here.
  if (r.outcome == Outcome::rejected) return;
  arrivals_ns_.push_back(r.arrival_ns);
  if (r.outcome == Outcome::completed && r.finish_ns >= 0) completed_.emplace_back(r.arrival_ns, r.finish_ns);
}

SustainedRate SustainedRateMeter::measure(double tolerance) const {
  SustainedRate m;
  if (arrivals_ns_.size() < 2) {
    m.why_short = "fewer than two arrivals";
    m.needed_scale = 2;
    return m;
  }
  const auto [first, last] = std::minmax_element(arrivals_ns_.begin(), arrivals_ns_.end());
  const Tick from_ns = *first + (*last - *first) / 2;
  const Tick to_ns = *last;
  m.window_s = seconds_from_ticks(to_ns - from_ns);
  for (const Tick a : arrivals_ns_) m.arrivals += (a >= from_ns && a <= to_ns);
  double latency_sum_s = 0;
  for (const auto& [arrival, finish] : completed_) {
    if (finish < from_ns || finish > to_ns) continue;
    ++m.completions;
    latency_sum_s += seconds_from_ticks(finish - arrival);
  }
  if (!(m.window_s > 0) || m.arrivals == 0) {
    m.why_short = "every request arrived at one instant";
    m.needed_scale = 2;
    return m;
  }
  m.offered_per_s = static_cast<double>(m.arrivals) / m.window_s;
  m.served_per_s = static_cast<double>(m.completions) / m.window_s;
  m.mean_latency_s = m.completions > 0 ? latency_sum_s / static_cast<double>(m.completions) : m.window_s;
  const double lambda = m.offered_per_s;
  m.noise = std::sqrt(2 * lambda * m.mean_latency_s) / (lambda * m.window_s);
  // Both conditions scale with the window: 3 noise <= tolerance needs a window
  // (3 noise / tolerance)^2 times longer; latency <= window / 2 needs 2 W / T times.
  const double for_noise = std::pow(3 * m.noise / tolerance, 2);
  const double for_latency = 2 * m.mean_latency_s / m.window_s;
  m.needed_scale = std::max(for_noise, for_latency);
  m.long_enough = m.needed_scale <= 1;
  if (!m.long_enough) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "too short to judge a %.3g%% shortfall: over the second half of its arrivals (%.3g s) it served "
                  "%.4g of %.4g req/s offered, +/- %.2g%% from arrival noise, mean latency %.3g s",
                  100 * tolerance, m.window_s, m.served_per_s, m.offered_per_s, 100 * m.noise, m.mean_latency_s);
    m.why_short = buf;
  }
  return m;
}

}  // namespace servesim
