#pragma once
// Simulated time. Everything inside the simulator is integer nanoseconds (`Tick`);
// seconds and milliseconds exist only at the edges (YAML loading, reports).
#include <cstdint>
#include <cmath>
#include <limits>

namespace servesim {

using Tick = std::int64_t;  // nanoseconds of simulated time

inline constexpr Tick kNsPerUs = 1'000;
inline constexpr Tick kNsPerMs = 1'000'000;
inline constexpr Tick kNsPerSec = 1'000'000'000;
inline constexpr Tick kTickMax = std::numeric_limits<Tick>::max();
// The most seconds an input may put between t = 0 and an arrival: 2^63 ns is 292 years,
// and 9e9 s (285 years) leaves room for the sums made from it.
inline constexpr double kMaxArrivalSeconds = 9e9;

// Rounds to the nearest integer, halves away from zero: std::llround, whose library call
// the hot paths (every priced step, every drawn length) cannot afford. For 1 <= x < 2^51 it
// is trunc(fl(x + 0.5)). Let 2^e be the power of two above x and u x's spacing (0.5 is a
// multiple of it). Below 2^e, x + 0.5 is a double, so fl changes nothing. From 2^e on the
// spacing is 2u and fl moves x + 0.5 by at most u: onto an integer K from below only from
// K - u (a tie, which goes to the even K), and K - u >= 2^e needs K >= 2^e + 1, so
// x = K - 0.5 - u > 2^e, which it is not. Otherwise, for 0 <= x < 2^53, the fraction
// x - trunc(x) is exact and the comparison with 0.5 rounds as llround does; anything else
// (larger, negative, NaN) goes to llround itself. Always inline: a link-time optimised
// build left it a call in the decode-run pricing loop (2% of a light run).
// tests/core/time_test.cpp compares it with llround.
[[gnu::always_inline]] inline std::int64_t round_half_away(double x) {
  if (x >= 1.0 && x < 2251799813685248.0) return static_cast<std::int64_t>(x + 0.5);  // 2^51
  if (x >= 0.0 && x < 9007199254740992.0) {  // 2^53
    const auto whole = static_cast<std::int64_t>(x);
    return x - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
  }
  return static_cast<std::int64_t>(std::llround(x));
}

// Rounds to the nearest nanosecond, halves away from zero. The cost model calls this once
// to four times per step.
[[gnu::always_inline]] inline Tick ticks_from_seconds(double seconds) { return round_half_away(seconds * 1e9); }
inline Tick ticks_from_ms(double ms) { return static_cast<Tick>(std::llround(ms * 1e6)); }
inline double seconds_from_ticks(Tick t) { return static_cast<double>(t) * 1e-9; }
inline double ms_from_ticks(Tick t) { return static_cast<double>(t) * 1e-6; }

}  // namespace servesim
