#include "sim/cluster/saturation_watch.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

SaturationWatch::SaturationWatch(std::int64_t slots) : slots_(slots) {
  SS_ASSERT(slots >= 0, "a cluster runs a non-negative number of requests at once");
}

bool SaturationWatch::observe(std::int64_t arrived, std::int64_t in_flight, std::int64_t unscheduled) {
  SS_ASSERT(arrived == arrived_ + 1, "observe() once per arrival, in order");
  arrived_ = arrived;
  last_excess_ = std::max<std::int64_t>({in_flight - slots_, unscheduled, 0});
  last_inside_ = in_flight;
  causes_at_last_arrival_ = causes_;
  if ((arrived & (arrived - 1)) != 0) return false;  // not a power of two
  excess_at_pow2_.push_back(last_excess_);
  inside_at_pow2_.push_back(in_flight);
  causes_at_pow2_.push_back(causes_);
  if (arrived < kEarliestCheck || early_) return early_;
  const std::size_t k = excess_at_pow2_.size() - 1;  // arrived == 2^k, k >= 10
  const std::int64_t half = excess_at_pow2_[k - 1], quarter = excess_at_pow2_[k - 2];
  const double n = static_cast<double>(arrived), e = static_cast<double>(last_excess_);
  early_ = e >= std::max(n / 16.0, 8.0 * std::sqrt(n)) && 2 * last_excess_ >= 3 * half && 2 * half >= 3 * quarter;
  return early_;
}

std::size_t SaturationWatch::window_start() const {
  std::size_t k = 0;  // 2^k is the largest power of two <= A / 2, so it lies in (A/4, A/2]
  while ((std::int64_t{2} << k) <= arrived_ / 2) ++k;
  return k;
}

bool SaturationWatch::saturated() const {
  if (early_) return true;
  if (arrived_ < 64) return false;
  const std::int64_t earlier = excess_at_pow2_[window_start()];
  const double a = static_cast<double>(arrived_);
  const double floor = std::max({a / 100.0, 3.0 * std::sqrt(a), 8.0});
  return static_cast<double>(last_excess_) >= floor && 2 * last_excess_ >= 3 * earlier;
}

SaturationWatch::Causes SaturationWatch::causes_in_window() const {
  Causes out{};
  if (arrived_ == 0) return out;
  const Causes& from = causes_at_pow2_[window_start()];
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = causes_at_last_arrival_[i] - from[i];
  return out;
}

std::int64_t SaturationWatch::inside_growth() const {
  if (arrived_ == 0) return 0;
  return last_inside_ - inside_at_pow2_[window_start()];
}

std::string SaturationWatch::saturated_by() const { return saturated() ? binding_cause() : "none"; }

std::string SaturationWatch::binding_cause() const {
  const Causes c = causes_in_window();
  std::size_t best = 3;  // compute, unless a step left someone waiting for a named limit
  std::int64_t most = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i] > most) most = c[i], best = i;
  return kCauseNames[best];
}

}  // namespace servesim
