#include "sim/workload/sampled_lengths.h"

#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

std::int64_t round_token_count(double sample, std::int64_t min_tokens) {
  if (std::isnan(sample)) return min_tokens;
  const double capped = std::fmin(sample, static_cast<double>(kMaxSampledTokens));
  const auto rounded = static_cast<std::int64_t>(std::llround(std::fmax(capped, -1.0)));
  return rounded < min_tokens ? min_tokens : rounded;
}

SampledLengths::SampledLengths(std::unique_ptr<Distribution> input, std::unique_ptr<Distribution> output,
                               Rng input_rng, Rng output_rng)
    : input_(std::move(input)), output_(std::move(output)), input_rng_(input_rng), output_rng_(output_rng) {
  SS_ASSERT(input_ && output_, "both length distributions are required");
}

TokenLengths SampledLengths::next() {
  TokenLengths lengths;
  const std::int64_t prompt = round_token_count(input_->sample(input_rng_), 0);
  if (prompt < 1) ++raised_input_samples_;
  lengths.prompt_tokens = prompt < 1 ? 1 : prompt;
  lengths.output_tokens = round_token_count(output_->sample(output_rng_), 0);
  return lengths;
}

}  // namespace servesim
