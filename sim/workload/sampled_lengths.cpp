#include "sim/workload/sampled_lengths.h"

#include <cmath>

#include "sim/core/assert.h"
#include "sim/core/time.h"

namespace servesim {

std::int64_t round_token_count(double sample, std::int64_t min_tokens) {
  if (std::isnan(sample)) return min_tokens;
  const double capped = std::fmin(sample, static_cast<double>(kMaxSampledTokens));
  const std::int64_t rounded = round_half_away(std::fmax(capped, -1.0));
  return rounded < min_tokens ? min_tokens : rounded;
}

DrawnTokens draw_tokens(const Distribution& distribution, Rng& rng, std::int64_t min_tokens) {
  const ClampedSample sample = distribution.sample_noting_clamp(rng);
  if (std::isnan(sample.value)) return {min_tokens, true, true};
  const double top = static_cast<double>(kMaxSampledTokens);
  const bool capped = sample.value >= top + 0.5;
  const std::int64_t rounded = round_half_away(std::fmax(std::fmin(sample.value, top), -1.0));
  const bool raised = rounded < min_tokens;
  return {raised ? min_tokens : rounded, sample.clamped || capped || raised, raised};
}

SampledLengths::SampledLengths(std::unique_ptr<Distribution> input, std::unique_ptr<Distribution> output,
                               Rng input_rng, Rng output_rng)
    : input_(std::move(input)), output_(std::move(output)), input_rng_(input_rng), output_rng_(output_rng) {
  SS_ASSERT(input_ && output_, "both length distributions are required");
}

TokenLengths SampledLengths::next() {
  TokenLengths lengths;
  const DrawnTokens prompt = draw_tokens(*input_, input_rng_, 1);
  if (prompt.raised) ++raised_input_samples_;
  const DrawnTokens output = draw_tokens(*output_, output_rng_, 0);
  lengths.prompt_tokens = prompt.tokens;
  lengths.output_tokens = output.tokens;
  lengths.prompt_clamped = prompt.clamped;
  lengths.output_clamped = output.clamped;
  return lengths;
}

}  // namespace servesim
