#pragma once
// Durations as users write them in scenarios: "250ms", "2s", "1.5m", "1h", "300us", "10ns",
// or a bare number of seconds. parse_duration() (scenario_loader.h) wraps this with errors.
#include <optional>
#include <string>
#include <string_view>

namespace servesim {

// Seconds, or nullopt when the text is not a finite non-negative number with a known unit.
// Units: ns, us (also µs), ms, s, m (also min), h; a space may separate number and unit.
std::optional<double> parse_duration_seconds(std::string_view text);

// The units accepted, for error messages.
inline constexpr const char* kDurationUnitsHelp =
    "expected a non-negative number with a unit ns, us, ms, s, m or h (e.g. 250ms, 1.5m); a "
    "bare number is seconds";

}  // namespace servesim
