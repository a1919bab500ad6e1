// Drawn token lengths that the workload changes (a min/max clamp, the raise to 1 prompt
// token or 0 output tokens, the cap) are flagged on the request, so a run can count them.
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/workload/sampled_lengths.h"
#include "sim/workload/synthetic_source.h"
#include "workload_test_util.h"

namespace clamped_lengths_test {

using namespace servesim;

namespace {

using servesim::testing::dist;

DrawnTokens draw(const DistSpec& spec, std::int64_t min_tokens) {
  Rng rng(1, "test");
  return draw_tokens(*make_distribution(spec), rng, min_tokens);
}

}  // namespace

TEST_CASE("draw_tokens flags a min or max clamp and the raise to the floor and the cap", "[workload]") {
  const DrawnTokens plain = draw(dist(DistSpec::Kind::fixed, 5), 1);
  CHECK(plain.tokens == 5);
  CHECK_FALSE(plain.clamped);

  DistSpec capped_by_max = dist(DistSpec::Kind::fixed, 5);
  capped_by_max.max = 3;
  CHECK(draw(capped_by_max, 1).tokens == 3);
  CHECK(draw(capped_by_max, 1).clamped);
  CHECK_FALSE(draw(capped_by_max, 1).raised);

  DistSpec raised_by_min = dist(DistSpec::Kind::fixed, 5);
  raised_by_min.min = 8;
  CHECK(draw(raised_by_min, 1).tokens == 8);
  CHECK(draw(raised_by_min, 1).clamped);

  // A clamp that does not bind changes nothing.
  DistSpec loose = dist(DistSpec::Kind::fixed, 5);
  loose.min = 1;
  loose.max = 9;
  CHECK_FALSE(draw(loose, 1).clamped);

  const DrawnTokens negative_output = draw(dist(DistSpec::Kind::fixed, -2), 0);
  CHECK(negative_output.tokens == 0);
  CHECK(negative_output.clamped);
  CHECK(negative_output.raised);
  // 0.4 rounds to 0, a legal output length reached by rounding, not by a floor.
  CHECK_FALSE(draw(dist(DistSpec::Kind::fixed, 0.4), 0).clamped);
  // ... but a prompt must be 1 token.
  CHECK(draw(dist(DistSpec::Kind::fixed, 0.4), 1).raised);

  const DrawnTokens huge = draw(dist(DistSpec::Kind::fixed, 1e15), 1);
  CHECK(huge.tokens == kMaxSampledTokens);
  CHECK(huge.clamped);
}

TEST_CASE("normal mean 10 std 50 prompts: the clamped count is the number of draws that round below 1", "[workload]") {
  ClassSpec spec;
  spec.name = "wide";
  ArrivalSpec arrival;
  arrival.process = ArrivalSpec::Process::poisson;
  arrival.rate_per_s = 1.0;
  spec.arrival = arrival;
  spec.input = dist(DistSpec::Kind::normal, 10, 50);
  spec.output = dist(DistSpec::Kind::fixed, 5);
  const std::uint64_t seed = 7;
  const auto source = make_source(spec, 0, seed);

  // The same draws, taken independently from the class's input stream (docs/workload.md,
  // "Random streams"): a sample below 0.5 rounds below 1 token.
  Rng input(seed, "workload/wide/input");
  const auto normal = make_distribution(*spec.input);
  const int n = 2000;
  int clamped_inputs = 0, clamped_outputs = 0, expected = 0;
  for (int i = 0; i < n; ++i) {
    REQUIRE(source->peek_arrival_ns().has_value());
    const RequestSpec r = source->pop();
    const bool below = normal->sample(input) < 0.5;
    expected += below;
    CHECK(r.input_clamped == below);
    CHECK(r.prompt_tokens >= 1);
    clamped_inputs += r.input_clamped;
    clamped_outputs += r.output_clamped;
  }
  CHECK(clamped_inputs == expected);
  CHECK(source->raised_input_samples() == static_cast<std::uint64_t>(expected));
  CHECK(clamped_outputs == 0);
  // P(X < 0.5) = Phi((0.5 - 10) / 50) = Phi(-0.19) = 0.424655: 849 of 2000, within five
  // standard deviations (sqrt(2000 p (1 - p)) = 22.1).
  const double p = 0.424655;
  CHECK(std::abs(clamped_inputs - n * p) < 5 * std::sqrt(n * p * (1 - p)));
}

}  // namespace clamped_lengths_test
