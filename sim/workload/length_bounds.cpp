#include "sim/workload/length_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/workload/empirical_distribution.h"
#include "sim/workload/sampled_lengths.h"

namespace servesim {

namespace {

// Below this share of outputs left, share_prompt_above counts the rest as rejected rather
// than visiting every longer output: the answer is then high by at most this much.
constexpr double kNegligibleShare = 1e-12;

// The token count draw_tokens makes of a clamped value (before the floor).
std::int64_t rounded(double value) {
  return std::llround(std::fmax(std::fmin(value, static_cast<double>(kMaxSampledTokens)), -1.0));
}

}  // namespace

LengthLaw::LengthLaw(const DistSpec& spec, std::int64_t floor_tokens) : spec_(spec), floor_tokens_(floor_tokens) {
  if (spec.kind == DistSpec::Kind::empirical)
    values_ = EmpiricalDistribution(spec.path, spec.column, std::nullopt, std::nullopt).values();
}

std::int64_t LengthLaw::smallest() const {
  double v = 0;
  switch (spec_.kind) {
    case DistSpec::Kind::fixed: v = spec_.a; break;
    case DistSpec::Kind::uniform: v = spec_.a; break;  // a + (b - a) u, u in [0, 1)
    case DistSpec::Kind::normal: v = spec_.b > 0 ? -std::numeric_limits<double>::infinity() : spec_.a; break;
    case DistSpec::Kind::lognormal: v = spec_.b > 0 ? 0 : spec_.a; break;  // approaches 0
    case DistSpec::Kind::exponential: v = 0; break;
    case DistSpec::Kind::empirical: v = values_.front(); break;
  }
  if (spec_.min) v = std::max(v, *spec_.min);
  if (spec_.max) v = std::min(v, *spec_.max);
  return std::max(floor_tokens_, rounded(v));
}

std::optional<std::int64_t> LengthLaw::largest() const {
  double v = std::numeric_limits<double>::infinity();
  switch (spec_.kind) {
    case DistSpec::Kind::fixed: v = spec_.a; break;
    case DistSpec::Kind::uniform: v = spec_.b; break;
    case DistSpec::Kind::normal:
    case DistSpec::Kind::lognormal: if (!(spec_.b > 0)) v = spec_.a; break;
    case DistSpec::Kind::exponential: break;
    case DistSpec::Kind::empirical: v = values_.back(); break;
  }
  if (spec_.min) v = std::max(v, *spec_.min);
  if (spec_.max) v = std::min(v, *spec_.max);
  if (std::isinf(v)) return std::nullopt;
  return std::max(floor_tokens_, rounded(v));
}

double LengthLaw::share_at_least(std::int64_t tokens) const {
  if (tokens <= floor_tokens_) return 1;
  if (tokens > kMaxSampledTokens) return 0;
  // llround rounds halves away from zero: a value rounds to `tokens` or more from tokens - 0.5 on.
  return share_of_values_at_least(static_cast<double>(tokens) - 0.5);
}

double LengthLaw::share_of_values_at_least(double x) const {
  // The clamped value is min(max(draw, min), max).
  if (spec_.max && *spec_.max < x) return 0;
  if (spec_.min && *spec_.min >= x) return 1;
  return share_of_draws_at_least(x);
}

double LengthLaw::share_of_draws_at_least(double x) const {
  const double a = spec_.a, b = spec_.b;
  const auto point = [&](double at) { return at >= x ? 1.0 : 0.0; };
  switch (spec_.kind) {
    case DistSpec::Kind::fixed:
      return point(a);
    case DistSpec::Kind::uniform:  // a + (b - a) u: P(u >= (x - a) / (b - a))
      return b > a ? std::clamp((b - x) / (b - a), 0.0, 1.0) : point(a);
    case DistSpec::Kind::normal:  // P(Z >= (x - mean) / std) = erfc(z / sqrt 2) / 2
      return b > 0 ? 0.5 * std::erfc((x - a) / (b * std::sqrt(2.0))) : point(a);
    case DistSpec::Kind::lognormal:  // median exp(sigma Z): P(Z >= ln(x / median) / sigma)
      if (x <= 0) return 1;
      return b > 0 ? 0.5 * std::erfc(std::log(x / a) / (b * std::sqrt(2.0))) : point(a);
    case DistSpec::Kind::exponential:  // P(X >= x) = exp(-x / mean)
      return x <= 0 ? 1.0 : std::exp(-x / a);
    case DistSpec::Kind::empirical:  // each row equally likely
      return static_cast<double>(values_.end() - std::lower_bound(values_.begin(), values_.end(), x)) /
             static_cast<double>(values_.size());
  }
  return 0;
}

double share_prompt_above(const LengthLaw& prompt, const LengthLaw& output,
                          const std::function<std::int64_t(std::int64_t)>& threshold, std::int64_t outputs_from) {
  // Sum over the output's lengths k of P(O = k) P(P > threshold(k)), then every output of
  // outputs_from tokens or more.
  double share = 0;
  std::int64_t k = output.smallest();
  double at_least_k = output.share_at_least(k);
  for (; k < outputs_from; ++k) {
    if (at_least_k < kNegligibleShare) break;
    const double at_least_next = output.share_at_least(k + 1);
    const double exactly_k = at_least_k - at_least_next;
    if (exactly_k > 0) {
      const std::int64_t t = std::min(threshold(k), kMaxSampledTokens);
      share += exactly_k * prompt.share_at_least(t + 1);
    }
    at_least_k = at_least_next;
  }
  return std::min(1.0, share + at_least_k);
}

}  // namespace servesim
