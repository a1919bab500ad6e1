#include "sim/metrics/sustained_rate.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "sim/core/assert.h"
#include "sim/metrics/request_record.h"

namespace servesim {

namespace {
constexpr Tick kFine = 512;         // offsets below this have 1 ns cells
constexpr std::size_t kPerDoubling = 256;
}  // namespace

std::size_t SustainedRateMeter::cell_of(Tick offset_ns) {
  if (offset_ns < kFine) return static_cast<std::size_t>(offset_ns);
  const auto d = static_cast<std::uint64_t>(offset_ns);
  const int e = std::bit_width(d) - 9;  // d >> e in [256, 512)
  return static_cast<std::size_t>(kFine) + static_cast<std::size_t>(e - 1) * kPerDoubling +
         static_cast<std::size_t>((d >> e) - kPerDoubling);
}

Tick SustainedRateMeter::cell_start(std::size_t cell) {
  if (cell < static_cast<std::size_t>(kFine)) return static_cast<Tick>(cell);
  const std::size_t k = cell - static_cast<std::size_t>(kFine);
  const int e = static_cast<int>(k / kPerDoubling) + 1;
  return static_cast<Tick>((kPerDoubling + k % kPerDoubling) << e);
}

SustainedRateMeter::Cell& SustainedRateMeter::cell_at(Tick t_ns) {
  const std::size_t c = cell_of(t_ns - first_ns_);
  if (c >= cells_.size()) cells_.resize(c + 1);
  return cells_[c];
}

void SustainedRateMeter::note_arrival(Tick arrival_ns) {
  if (first_ns_ < 0) first_ns_ = arrival_ns;
  last_ns_ = std::max(last_ns_, arrival_ns);
}

void SustainedRateMeter::note_in_flight(Tick now_ns, std::int64_t in_flight) {
  if (first_ns_ < 0) return;
  Cell& c = cell_at(now_ns);
  if (c.sample_ns >= 0) return;
  c.sample_ns = now_ns;
  c.in_flight = in_flight;
}

void SustainedRateMeter::add(const RequestRecord& r) {
  // A rejected request is no load the cluster took on (`capacity` counts rejections on
  // their own), so it is neither offered nor served here.
  if (r.outcome == Outcome::rejected) return;
  SS_ASSERT(first_ns_ >= 0 && r.arrival_ns >= first_ns_, "a request recorded before its arrival was noted");
  ++cell_at(r.arrival_ns).arrivals;
  if (r.outcome == Outcome::completed && r.finish_ns >= 0) {
    Cell& c = cell_at(r.finish_ns);
    ++c.completions;
    c.latency_s += seconds_from_ticks(r.finish_ns - r.arrival_ns);
  }
}

double SustainedRateMeter::queue_spread(std::size_t from, std::size_t to, double t_mean, double n_mean,
                                        double samples) const {
  double stt = 0, stn = 0;
  for (std::size_t c = from; c < to && c < cells_.size(); ++c) {
    if (cells_[c].sample_ns < 0) continue;
    const double dt = seconds_from_ticks(cells_[c].sample_ns - first_ns_) - t_mean;
    stt += dt * dt;
    stn += dt * (static_cast<double>(cells_[c].in_flight) - n_mean);
  }
  const double slope = stt > 0 ? stn / stt : 0;
  double sse = 0;
  for (std::size_t c = from; c < to && c < cells_.size(); ++c) {
    if (cells_[c].sample_ns < 0) continue;
    const double dt = seconds_from_ticks(cells_[c].sample_ns - first_ns_) - t_mean;
    const double r = static_cast<double>(cells_[c].in_flight) - n_mean - slope * dt;
    sse += r * r;
  }
  return std::sqrt(sse / (samples - 2));
}

SustainedRate SustainedRateMeter::measure(double tolerance) const {
  SustainedRate m;
  std::int64_t arrivals = 0;
  for (const Cell& c : cells_) arrivals += c.arrivals;
  if (arrivals < 2) {
    m.why_short = "fewer than two arrivals";
    m.needed_scale = 2;
    return m;
  }
  // [from, to): from the first cell edge at or after the midpoint to the start of the last
  // arrival's cell.
  const Tick half = (last_ns_ - first_ns_) / 2;
  std::size_t from = cell_of(half);
  if (cell_start(from) < half) ++from;
  const std::size_t to = cell_of(last_ns_ - first_ns_);
  if (to <= from) {
    m.why_short = "every request arrived at one instant";
    m.needed_scale = 2;
    return m;
  }
  m.window_s = seconds_from_ticks(cell_start(to) - cell_start(from));
  double latency_sum_s = 0;
  double k = 0, st = 0, sn = 0;  // samples of the requests inside: count, sums of t and n
  for (std::size_t c = from; c < to && c < cells_.size(); ++c) {
    m.arrivals += cells_[c].arrivals;
    m.completions += cells_[c].completions;
    latency_sum_s += cells_[c].latency_s;
    if (cells_[c].sample_ns >= 0) {
      k += 1;
      st += seconds_from_ticks(cells_[c].sample_ns - first_ns_);
      sn += static_cast<double>(cells_[c].in_flight);
    }
  }
  // Their spread about a least-squares line (8 samples at least, else none is taken).
  if (k >= 8) m.queue_spread = queue_spread(from, to, st / k, sn / k, k);
  if (m.arrivals == 0) {
    m.why_short = "no request arrived in the second half of the arrival span";
    m.needed_scale = 2;
    return m;
  }
  m.offered_per_s = static_cast<double>(m.arrivals) / m.window_s;
  m.served_per_s = static_cast<double>(m.completions) / m.window_s;
  m.mean_latency_s = m.completions > 0 ? latency_sum_s / static_cast<double>(m.completions) : m.window_s;
  const double lambda = m.offered_per_s;
  const double poisson_noise = std::sqrt(2 * lambda * m.mean_latency_s) / (lambda * m.window_s);
  const double queue_noise = std::sqrt(2.0) * m.queue_spread / static_cast<double>(m.arrivals);
  m.noise = std::max(poisson_noise, queue_noise);
  // Both conditions scale with the window: 3 noise <= tolerance needs a window
  // (3 noise / tolerance)^2 times longer for the Poisson deviation, 3 noise / tolerance for
  // the queue's spread; latency <= window / 2 needs 2 W / T times.
  const double for_noise =
      std::max(std::pow(3 * poisson_noise / tolerance, 2), 3 * queue_noise / tolerance);
  const double for_latency = 2 * m.mean_latency_s / m.window_s;
  m.needed_scale = std::max(for_noise, for_latency);
  m.long_enough = m.needed_scale <= 1;
  m.latency_fits = for_latency <= 1;
  if (!m.long_enough) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "too short to judge a %.3g%% shortfall: over the second half of its arrivals (%.3g s) it served "
                  "%.4g of %.4g req/s offered, +/- %.2g%% from arrival and queue noise, mean latency %.3g s",
                  100 * tolerance, m.window_s, m.served_per_s, m.offered_per_s, 100 * m.noise, m.mean_latency_s);
    m.why_short = buf;
  }
  return m;
}

}  // namespace servesim
