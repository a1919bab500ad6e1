#pragma once
// Distributions of token counts and durations, as written in scenarios:
// {fixed: N}, {uniform: [MIN, MAX]}, {normal: {mean, std}}, {lognormal: {median, sigma}},
// {exponential: {mean}}, {empirical: {path, column}}; each may add `min` and `max` clamps.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/rng.h"

namespace servesim {

struct DistSpec {
  enum class Kind { fixed, uniform, normal, lognormal, exponential, empirical };
  Kind kind = Kind::fixed;
  double a = 0;  // fixed: value; uniform: min; normal: mean; lognormal: median; exponential: mean
  double b = 0;  // uniform: max; normal: std; lognormal: sigma
  std::string path;    // empirical: CSV file (resolved by the loader)
  std::string column;  // empirical: column name
  std::optional<double> min;  // clamps applied after sampling
  std::optional<double> max;
};

// One sample and whether the spec's `min`/`max` clamp changed it (so token lengths can be
// counted as clamped, docs/workload.md).
struct ClampedSample {
  double value = 0;
  bool clamped = false;
};

class Distribution {
 public:
  virtual ~Distribution() = default;
  // One sample, clamps applied. Token counts are rounded by the caller.
  virtual double sample(Rng& rng) const = 0;
  // The same draw (same stream use, same value), saying whether a clamp changed it.
  virtual ClampedSample sample_noting_clamp(Rng& rng) const = 0;
  // The exact mean before clamping (used in reports and tests).
  virtual double mean() const = 0;
};

// Throws ConfigError (naming spec.path) when an empirical file cannot be read.
std::unique_ptr<Distribution> make_distribution(const DistSpec& spec);

}  // namespace servesim
