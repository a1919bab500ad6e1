#pragma once
// Token lengths drawn from the class's `input` and `output` distributions. Samples are
// rounded to the nearest integer (halves away from zero). A prompt below 1 token is raised
// to 1 and counted, so a run can say how much its input distribution was distorted; an
// output below 0 becomes 0 (a prefill-only request), which is a legal outcome, not counted.
#include <cstdint>
#include <memory>

#include "sim/core/rng.h"
#include "sim/workload/distribution.h"
#include "sim/workload/length_source.h"

namespace servesim {

// Largest token count a sample may round to; larger samples (a lognormal with a huge sigma)
// are capped here so the conversion to an integer is always defined.
inline constexpr std::int64_t kMaxSampledTokens = std::int64_t{1} << 40;

// Rounds a sampled token count to the nearest integer in [min_tokens, kMaxSampledTokens].
std::int64_t round_token_count(double sample, std::int64_t min_tokens);

class SampledLengths : public LengthSource {
 public:
  // Input and output draw from separate streams, so changing one distribution never shifts
  // the other's draws.
  SampledLengths(std::unique_ptr<Distribution> input, std::unique_ptr<Distribution> output, Rng input_rng,
                 Rng output_rng);

  bool has_next() override { return true; }
  TokenLengths next() override;
  std::uint64_t raised_input_samples() const override { return raised_input_samples_; }

 private:
  std::unique_ptr<Distribution> input_;
  std::unique_ptr<Distribution> output_;
  Rng input_rng_;
  Rng output_rng_;
  std::uint64_t raised_input_samples_ = 0;
};

}  // namespace servesim
