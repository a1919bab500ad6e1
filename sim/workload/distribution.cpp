// The parametric distributions and make_distribution. Every draw uses servesim::Rng, whose
// sampling formulas are our own, so a seed gives the same numbers with any standard library.
#include <cmath>
#include <string>

#include "sim/core/errors.h"
#include "sim/workload/clamped_distribution.h"
#include "sim/workload/empirical_distribution.h"

namespace servesim {
namespace {

class FixedDistribution : public ClampedDistribution {
 public:
  FixedDistribution(double value, std::optional<double> min, std::optional<double> max)
      : ClampedDistribution(min, max), value_(value) {}
  double mean() const override { return value_; }

 protected:
  double draw(Rng&) const override { return value_; }

 private:
  double value_;
};

// Continuous on [min, max]; token counts are rounded by the caller, so the integer counts
// at the two ends have half the probability of the inner ones.
class UniformDistribution : public ClampedDistribution {
 public:
  UniformDistribution(double lo, double hi, std::optional<double> min, std::optional<double> max)
      : ClampedDistribution(min, max), lo_(lo), hi_(hi) {}
  double mean() const override { return 0.5 * (lo_ + hi_); }

 protected:
  double draw(Rng& rng) const override { return lo_ + (hi_ - lo_) * rng.uniform01(); }

 private:
  double lo_, hi_;
};

class NormalDistribution : public ClampedDistribution {
 public:
  NormalDistribution(double mean, double std, std::optional<double> min, std::optional<double> max)
      : ClampedDistribution(min, max), mean_(mean), std_(std) {}
  double mean() const override { return mean_; }

 protected:
  double draw(Rng& rng) const override { return mean_ + std_ * rng.normal(); }

 private:
  double mean_, std_;
};

// exp(ln(median) + sigma * Z): the median is exp(mu), the mean exp(mu + sigma^2 / 2).
class LognormalDistribution : public ClampedDistribution {
 public:
  LognormalDistribution(double median, double sigma, std::optional<double> min, std::optional<double> max)
      : ClampedDistribution(min, max), mu_(std::log(median)), sigma_(sigma) {}
  double mean() const override { return std::exp(mu_ + 0.5 * sigma_ * sigma_); }

 protected:
  double draw(Rng& rng) const override { return std::exp(mu_ + sigma_ * rng.normal()); }

 private:
  double mu_, sigma_;
};

class ExponentialDistribution : public ClampedDistribution {
 public:
  ExponentialDistribution(double mean, std::optional<double> min, std::optional<double> max)
      : ClampedDistribution(min, max), mean_(mean) {}
  double mean() const override { return mean_; }

 protected:
  double draw(Rng& rng) const override { return rng.exponential(mean_); }

 private:
  double mean_;
};

[[noreturn]] void bad_parameter(const std::string& key, const std::string& message) {
  throw ConfigError("", 0, key, message);
}

void check_finite(double value, const std::string& key) {
  if (!std::isfinite(value)) bad_parameter(key, "must be a finite number");
}

}  // namespace

std::unique_ptr<Distribution> make_distribution(const DistSpec& spec) {
  check_finite(spec.a, "distribution");
  check_finite(spec.b, "distribution");
  if (spec.min) check_finite(*spec.min, "min");
  if (spec.max) check_finite(*spec.max, "max");
  if (spec.min && spec.max && *spec.min > *spec.max) {
    bad_parameter("min", "min (" + std::to_string(*spec.min) + ") is above max (" + std::to_string(*spec.max) + ")");
  }
  switch (spec.kind) {
    case DistSpec::Kind::fixed:
      return std::make_unique<FixedDistribution>(spec.a, spec.min, spec.max);
    case DistSpec::Kind::uniform:
      if (spec.a > spec.b) bad_parameter("uniform", "the lower bound is above the upper bound");
      return std::make_unique<UniformDistribution>(spec.a, spec.b, spec.min, spec.max);
    case DistSpec::Kind::normal:
      if (spec.b < 0) bad_parameter("normal.std", "must not be negative");
      return std::make_unique<NormalDistribution>(spec.a, spec.b, spec.min, spec.max);
    case DistSpec::Kind::lognormal:
      if (spec.a <= 0) bad_parameter("lognormal.median", "must be positive");
      if (spec.b < 0) bad_parameter("lognormal.sigma", "must not be negative");
      return std::make_unique<LognormalDistribution>(spec.a, spec.b, spec.min, spec.max);
    case DistSpec::Kind::exponential:
      if (spec.a <= 0) bad_parameter("exponential.mean", "must be positive");
      return std::make_unique<ExponentialDistribution>(spec.a, spec.min, spec.max);
    case DistSpec::Kind::empirical:
      if (spec.path.empty()) bad_parameter("empirical.path", "is required");
      if (spec.column.empty()) bad_parameter("empirical.column", "is required");
      return std::make_unique<EmpiricalDistribution>(spec.path, spec.column, spec.min, spec.max);
  }
  bad_parameter("distribution", "unknown kind");
}

}  // namespace servesim
