#pragma once
// Shared base of every Distribution: draws a raw value, then applies the spec's `min` and
// `max` clamps. Subclasses only say how to draw and what the unclamped mean is.
#include <algorithm>
#include <optional>

#include "sim/workload/distribution.h"

namespace servesim {

class ClampedDistribution : public Distribution {
 public:
  ClampedDistribution(std::optional<double> min, std::optional<double> max) : min_(min), max_(max) {}

  double sample(Rng& rng) const final { return sample_noting_clamp(rng).value; }

  ClampedSample sample_noting_clamp(Rng& rng) const final {
    const double raw = draw(rng);
    double value = raw;
    if (min_) value = std::max(value, *min_);
    if (max_) value = std::min(value, *max_);
    return {value, value != raw};
  }

 protected:
  // One unclamped draw.
  virtual double draw(Rng& rng) const = 0;

 private:
  std::optional<double> min_;
  std::optional<double> max_;
};

}  // namespace servesim
