#pragma once
// What a class's token-length distributions allow, worked out from the distribution
// itself before anything is drawn: the smallest and largest length a draw can give and the
// share of draws at or above a length, for lengths drawn as sampled_lengths.h draws them
// (clamped by the spec's min/max, rounded to the nearest token, raised to a floor). The
// scenario's servability check (sim/scenario/servability.h) uses them to refuse a class
// none of whose requests a pool can serve and to say what share of them it will reject.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/workload/distribution.h"

namespace servesim {

class LengthLaw {
 public:
  // `floor_tokens`: the length a smaller draw is raised to (1 for prompts, 0 for outputs).
  // Reads an empirical distribution's column (throws ConfigError as make_distribution does).
  LengthLaw(const DistSpec& spec, std::int64_t floor_tokens);

  std::int64_t smallest() const;
  // The largest length a draw can give; nullopt when the distribution is unbounded above
  // (normal, lognormal or exponential without a `max`).
  std::optional<std::int64_t> largest() const;
  // P(length >= tokens).
  double share_at_least(std::int64_t tokens) const;

 private:
  // P(clamped value >= x) of one draw before rounding.
  double share_of_values_at_least(double x) const;
  // P(raw draw >= x), before the clamps.
  double share_of_draws_at_least(double x) const;

  DistSpec spec_;
  std::int64_t floor_tokens_;
  std::vector<double> values_;  // empirical: the column, ascending
};

// P(P > threshold(O)) for independent lengths P (the prompt) and O (the output): the share
// of requests a rule of the form "a prompt longer than this, given the output" rejects.
// `threshold` must be below 1 for every output of `outputs_from` tokens or more (so that
// every such request counts), which bounds the sum.
double share_prompt_above(const LengthLaw& prompt, const LengthLaw& output,
                          const std::function<std::int64_t(std::int64_t)>& threshold, std::int64_t outputs_from);

}  // namespace servesim
