#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "sim/core/rng.h"
#include "sim/core/time.h"

namespace time_test {

using namespace servesim;

// ticks_from_seconds has an inline path; it must round exactly as std::llround does, since
// every step's duration goes through it (summary.json is pinned to the ns).
TEST_CASE("time: ticks_from_seconds rounds as llround - halves away from zero", "[core]") {
  CHECK(ticks_from_seconds(0.0) == 0);
  CHECK(ticks_from_seconds(0.5e-9) == 1);
  CHECK(ticks_from_seconds(1.5e-9) == 2);
  CHECK(ticks_from_seconds(2.5e-9) == 3);
  CHECK(ticks_from_seconds(1.0) == 1'000'000'000);
  // The largest double below 0.5 ns rounds down, as in llround.
  const double below_half = std::nextafter(0.5, 0.0) * 1e-9;
  CHECK(ticks_from_seconds(below_half) == std::llround(below_half * 1e9));
  // Past 2^53 ns (104 days) and negative values take llround's own path.
  CHECK(ticks_from_seconds(1e7) == std::llround(1e16));
  CHECK(ticks_from_seconds(-2.5e-9) == -3);

  Rng rng(7, "time");
  for (int i = 0; i < 200000; ++i) {
    // Step-like durations (1 us .. 10 s) and values at and around half nanoseconds.
    const double s = std::exp(rng.uniform01() * 23.0 - 14.0);
    const double half = (static_cast<double>(rng.uniform_int(0, 1'000'000)) + 0.5) * 1e-9;
    for (const double v : {s, half, std::nextafter(half, 0.0), std::nextafter(half, 1.0)}) {
      INFO("seconds " << v);
      REQUIRE(ticks_from_seconds(v) == std::llround(v * 1e9));
    }
  }
}

// The inline path's trunc(x + 0.5) for 1 <= x < 2^51 ns: the halves and their neighbours
// just below and above every power of two, where x + 0.5 moves to a coarser spacing, and at
// the 2^51 and 2^53 edges of the paths.
TEST_CASE("time: ticks_from_seconds rounds as llround next to powers of two", "[core]") {
  int checked = 0;
  for (int e = 0; e <= 54; ++e) {
    const double power = std::ldexp(1.0, e);
    for (const double offset : {-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5}) {
      double seconds = (power + offset) * 1e-9;
      for (int i = 0; i < 4; ++i) seconds = std::nextafter(seconds, 0.0);
      for (int i = 0; i < 9; ++i, seconds = std::nextafter(seconds, 1e300)) {
        const double ns = seconds * 1e9;
        INFO("seconds " << seconds << ", ns " << ns);
        REQUIRE(ticks_from_seconds(seconds) == std::llround(ns));
        ++checked;
      }
    }
  }
  CHECK(checked == 55 * 7 * 9);
}

// round_half_away itself, as the length draws use it: sampled token counts (lognormal
// samples from below 1 to 2^40), -1 (the floor draw_tokens clamps to), halves, and the
// values next to them.
TEST_CASE("time: round_half_away rounds as llround - token counts and negatives", "[core]") {
  for (const double v : {-1.0, -0.5, -0.49999999999999994, 0.0, 0.49999999999999994, 0.5, 0.9999999999999999, 1.0,
                         1.5, 2.5, 4503599627370495.5, 4503599627370496.0, 1099511627776.0})
    CHECK(round_half_away(v) == std::llround(v));
  Rng rng(11, "round");
  for (int i = 0; i < 200000; ++i) {
    const double sample = std::exp(rng.uniform01() * 30.0 - 3.0);  // 0.05 .. 5e11
    const double half = static_cast<double>(rng.uniform_int(0, 1'000'000)) + 0.5;
    for (const double v : {sample, half, std::nextafter(half, 0.0), std::nextafter(half, 2e6), -sample}) {
      INFO("value " << v);
      REQUIRE(round_half_away(v) == std::llround(v));
    }
  }
}

}  // namespace time_test
