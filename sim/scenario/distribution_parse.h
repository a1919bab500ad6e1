#pragma once
// Reads a distribution as written in a scenario (docs/scenario.md, "Distributions"):
// {fixed: N}, {uniform: [MIN, MAX]}, {normal: {mean, std}}, {lognormal: {median, sigma}},
// {exponential: {mean}}, {empirical: {path, column}}, each with optional `min`/`max` clamps.
// A bare value is shorthand for {fixed: value}.
#include "sim/scenario/yaml_helpers.h"
#include "sim/workload/distribution.h"

namespace servesim {

// What the sampled values measure. Token counts are plain non-negative numbers; durations
// (think times) take units ("5s", "250ms") and are stored in seconds.
enum class DistUnit { tokens, seconds };

// Throws ConfigError at the offending key. Empirical paths are resolved against the
// scenario's folder and must exist.
DistSpec parse_distribution(const Field& field, DistUnit unit);

// "lognormal(median 2000, sigma 0.6)", for `validate`'s summary.
std::string describe_distribution(const DistSpec& spec, DistUnit unit);

}  // namespace servesim
