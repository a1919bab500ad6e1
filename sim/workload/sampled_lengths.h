#pragma once
// Token lengths drawn from the class's `input` and `output` distributions. Samples are
// rounded to the nearest integer (halves away from zero). A prompt below 1 token is raised
// to 1 and an output below 0 becomes 0 (a prefill-only request); either, like a min/max
// clamp, marks the request as clamped (TokenLengths), so a run can say how much its
// distributions were distorted.
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

// A token length drawn from a distribution and whether anything changed it: the spec's
// min/max clamp, the raise to `min_tokens`, or the cap at kMaxSampledTokens. Such lengths
// are counted per class (clamped_input, clamped_output in summary.json), so a run says how
// far its lengths are from the distribution that was written.
struct DrawnTokens {
  std::int64_t tokens = 0;
  bool clamped = false;  // changed in any of those ways
  bool raised = false;   // of them, raised to min_tokens
};
DrawnTokens draw_tokens(const Distribution& distribution, Rng& rng, std::int64_t min_tokens);

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
