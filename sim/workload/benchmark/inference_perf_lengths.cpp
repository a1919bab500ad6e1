// inference-perf's length samplers (inference_perf_lengths.h).
#include "sim/workload/benchmark/inference_perf_lengths.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"

namespace servesim {
namespace {

// np.clip, np.round (half to even: nearbyint in the default rounding mode), np.clip.
std::int64_t clip_round(double x, const InferencePerfLength& l) {
  const double lo = static_cast<double>(l.min), hi = static_cast<double>(l.max);
  const double rounded = std::nearbyint(std::clamp(x, lo, hi));
  return static_cast<std::int64_t>(std::clamp(rounded, lo, hi));
}

// rng.lognormal(mu, sigma) with mu, sigma giving the requested mean and std_dev.
double moment_matched_lognormal(double mean, double std_dev, Rng& rng) {
  const double sigma_sq = std::log(1.0 + (std_dev / mean) * (std_dev / mean));
  const double mu = std::log(mean) - sigma_sq / 2.0;
  return std::exp(mu + std::sqrt(sigma_sq) * rng.normal());
}

}  // namespace

std::int64_t poisson_count(double lambda, Rng& rng) {
  constexpr double kSlice = 30.0;  // exp(-30) is far above the smallest double
  std::int64_t count = 0;
  while (lambda > 0) {
    const double part = std::min(lambda, kSlice);
    lambda -= part;
    const double limit = std::exp(-part);
    double product = rng.uniform01();
    while (product > limit) {
      ++count;
      product *= rng.uniform01();
    }
  }
  return count;
}

std::int64_t shared_prefix_length(const InferencePerfLength& l, Rng& rng) {
  using K = InferencePerfLength::Kind;
  switch (l.kind) {
    case K::fixed:
      // np.full(count, int(config.mean)): truncated toward zero and not clipped.
      return static_cast<std::int64_t>(l.mean);
    case K::normal:
      return clip_round(l.mean + l.std_dev * rng.normal(), l);
    case K::skew_normal: {
      // _sample_skew_normal: delta = skew / sqrt(1 + skew^2); z = u1 if u0 >= 0 else -u1,
      // u1 = delta u0 + sqrt(1 - delta^2) v for standard normals u0, v.
      const double delta = l.skew / std::sqrt(1.0 + l.skew * l.skew);
      const double u0 = rng.normal(), v = rng.normal();
      const double u1 = delta * u0 + std::sqrt(1.0 - delta * delta) * v;
      return clip_round(l.mean + l.std_dev * (u0 >= 0 ? u1 : -u1), l);
    }
    case K::lognormal:
      // mean <= 0 is refused by the tool at sampling time; read_inference_perf_config
      // cannot see it for a bare length, so it is treated as the degenerate constant.
      if (l.std_dev <= 0 || l.mean <= 0) return clip_round(l.mean, l);
      return clip_round(moment_matched_lognormal(l.mean, l.std_dev, rng), l);
    case K::uniform:
      // rng.uniform(low=min, high=max + 1).
      return clip_round(static_cast<double>(l.min) + static_cast<double>(l.max + 1 - l.min) * rng.uniform01(), l);
    case K::poisson:
      return clip_round(static_cast<double>(poisson_count(l.mean > 0 ? l.mean : 1.0, rng)), l);
  }
  return l.min;
}

std::int64_t io_length(const InferencePerfLength& l, Rng& rng) {
  using K = InferencePerfLength::Kind;
  switch (l.kind) {
    case K::fixed:
    case K::normal:
      // generate_distribution draws these as sample_from_distribution does.
      return shared_prefix_length(l, rng);
    case K::lognormal: {
      // generate_distribution shifts so that min maps to 0: lognormal of mean - min, + min.
      double shifted = l.mean - static_cast<double>(l.min);
      if (shifted <= 0) shifted = 1.0;
      const double x = l.std_dev > 0 ? moment_matched_lognormal(shifted, l.std_dev, rng) : shifted;
      return clip_round(x + static_cast<double>(l.min), l);
    }
    case K::uniform:
      // rng.uniform(low=min, high=max).
      return clip_round(static_cast<double>(l.min) + static_cast<double>(l.max - l.min) * rng.uniform01(), l);
    case K::skew_normal:
    case K::poisson:
      break;
  }
  SS_ASSERT(false, "io_length: a distribution type generate_distribution refuses");
  return l.min;
}

}  // namespace servesim
