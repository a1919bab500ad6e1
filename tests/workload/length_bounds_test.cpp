// length_bounds.h: the smallest and largest lengths a distribution draws and the share of
// draws at or above a length, against the closed forms of each distribution (a draw
// rounds to k tokens or more from k - 0.5 on).
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/workload/length_bounds.h"
#include "workload/workload_test_util.h"

namespace length_bounds_test {

using namespace servesim;
using servesim::testing::dist;
using servesim::testing::TempFile;
using Kind = DistSpec::Kind;

TEST_CASE("length bounds: the ends and tails of fixed and uniform lengths", "[workload][servability]") {
  const LengthLaw fixed(dist(Kind::fixed, 400), 1);
  CHECK(fixed.smallest() == 400);
  CHECK(fixed.largest() == 400);
  CHECK(fixed.share_at_least(400) == 1.0);
  CHECK(fixed.share_at_least(401) == 0.0);

  // 1000 + 8000 u: at least 8001 tokens from 8000.5 on, (9000 - 8000.5) / 8000 of draws.
  const LengthLaw uniform(dist(Kind::uniform, 1000, 9000), 1);
  CHECK(uniform.smallest() == 1000);
  CHECK(uniform.largest() == 9000);
  CHECK(uniform.share_at_least(8001) == Approx(999.5 / 8000).epsilon(1e-12));
  CHECK(uniform.share_at_least(1) == 1.0);
}

TEST_CASE("length bounds: the tails of normal and lognormal and exponential lengths", "[workload][servability]") {
  // Normal(7000, 1000): P(X >= 8000.5) = Q(1.0005) = 0.158534 (Q(1) = 0.158655 less
  // 0.0005 x phi(1) = 0.000121).
  const LengthLaw normal(dist(Kind::normal, 7000, 1000), 1);
  CHECK(normal.share_at_least(8001) == Approx(0.158534).epsilon(1e-5));
  CHECK(normal.smallest() == 1);  // unbounded below: raised to the floor
  CHECK_FALSE(normal.largest().has_value());
  // Lognormal(median 2000, sigma 0.6): P(X >= 8000.5) = Q(ln(8000.5 / 2000) / 0.6) =
  // Q(2.31060) = 0.0104276.
  const LengthLaw lognormal(dist(Kind::lognormal, 2000, 0.6), 1);
  CHECK(lognormal.share_at_least(8001) == Approx(0.0104276).epsilon(1e-4));
  // Exponential(mean 500): P(X >= 1000.5) = exp(-2.001) = 0.135200.
  const LengthLaw exponential(dist(Kind::exponential, 500), 0);
  CHECK(exponential.share_at_least(1001) == Approx(0.135200).epsilon(1e-5));
  CHECK(exponential.smallest() == 0);
}

TEST_CASE("length bounds: min and max clamps bound the lengths", "[workload][servability]") {
  DistSpec spec = dist(Kind::normal, 7000, 1000);
  spec.min = 5000;
  spec.max = 8000;
  const LengthLaw clamped(spec, 1);
  CHECK(clamped.smallest() == 5000);
  CHECK(clamped.largest() == 8000);
  CHECK(clamped.share_at_least(8001) == 0.0);     // nothing passes the max
  CHECK(clamped.share_at_least(5000) == 1.0);     // everything reaches the min
  CHECK(clamped.share_at_least(8000) == Approx(0.5 * std::erfc(999.5 / 1000 / std::sqrt(2.0))));
}

TEST_CASE("length bounds: an empirical column's rows", "[workload][servability]") {
  const TempFile file("length_bounds.csv", "len\n10\n20\n30\n40\n");
  DistSpec spec;
  spec.kind = Kind::empirical;
  spec.path = file.path();
  spec.column = "len";
  const LengthLaw empirical(spec, 1);
  CHECK(empirical.smallest() == 10);
  CHECK(empirical.largest() == 40);
  CHECK(empirical.share_at_least(25) == 0.5);  // 30 and 40 of four rows
}

TEST_CASE("length bounds: the share of requests longer than a context", "[workload][servability]") {
  const auto above_context = [](std::int64_t k) { return 8192 - k; };
  // A fixed output of 192: the prompt's own tail at 8001.
  const LengthLaw prompt(dist(Kind::uniform, 1000, 9000), 1);
  CHECK(share_prompt_above(prompt, LengthLaw(dist(Kind::fixed, 192), 0), above_context, 8192) ==
        Approx(999.5 / 8000).epsilon(1e-12));
  // Prompt U(4000, 8000), output U(0, 1000), independent: P(P + O > 8192) is the area of
  // {p + o > 8192} over the 4000 x 1000 rectangle, a triangle with legs 808 and 808:
  // 808^2 / 2 / 4,000,000 = 0.0816. Rounding to whole tokens moves it by about one token's
  // width of the triangle's edge (the exact sum over whole tokens is 0.0815071).
  const double share = share_prompt_above(LengthLaw(dist(Kind::uniform, 4000, 8000), 1),
                                          LengthLaw(dist(Kind::uniform, 0, 1000), 0), above_context, 8192);
  CHECK(share == Approx(808.0 * 808.0 / 2 / 4e6).epsilon(0.002));
  CHECK(share == Approx(0.0815071).epsilon(1e-6));
}

}  // namespace length_bounds_test
