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

// Rounds to the nearest nanosecond. REQUIRES: finite, non-negative input.
inline Tick ticks_from_seconds(double seconds) { return static_cast<Tick>(std::llround(seconds * 1e9)); }
inline Tick ticks_from_ms(double ms) { return static_cast<Tick>(std::llround(ms * 1e6)); }
inline double seconds_from_ticks(Tick t) { return static_cast<double>(t) * 1e-9; }
inline double ms_from_ticks(Tick t) { return static_cast<double>(t) * 1e-6; }

}  // namespace servesim
