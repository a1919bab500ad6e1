#include "sim/scenario/duration.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "sim/core/errors.h"
#include "sim/core/time.h"
#include "sim/scenario/scenario_loader.h"

namespace servesim {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E';
}

// Seconds per unit. Longest spellings first is not needed: units are matched whole.
constexpr std::array<std::pair<std::string_view, double>, 9> kUnits{{
    {"ns", 1e-9},
    {"us", 1e-6},
    {"\xC2\xB5s", 1e-6},
    {"ms", 1e-3},
    {"s", 1.0},
    {"m", 60.0},
    {"min", 60.0},
    {"h", 3600.0},
    {"", 1.0},
}};

}  // namespace

std::optional<double> parse_duration_seconds(std::string_view text) {
  text = trim(text);
  // The number ends where the unit begins; 'e' belongs to the number only when followed by
  // a digit or sign (so "1e3" is a number, but no unit starts with 'e' anyway).
  std::size_t end = 0;
  while (end < text.size() && is_number_char(text[end])) ++end;
  const std::string number(text.substr(0, end));
  const std::string_view unit = trim(text.substr(end));
  if (number.empty()) return std::nullopt;
  char* parsed_end = nullptr;
  const double value = std::strtod(number.c_str(), &parsed_end);
  if (parsed_end != number.c_str() + number.size()) return std::nullopt;
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  for (const auto& [name, seconds_per_unit] : kUnits) {
    if (unit == name) {
      const double seconds = value * seconds_per_unit;
      if (!std::isfinite(seconds)) return std::nullopt;
      return seconds;
    }
  }
  return std::nullopt;
}

Tick parse_duration(const std::string& text, const std::string& file, int line,
                    const std::string& key) {
  const std::optional<double> seconds = parse_duration_seconds(text);
  if (!seconds) {
    throw ConfigError(file, line, key, "bad duration '" + text + "': " + kDurationUnitsHelp);
  }
  // Beyond ~292 years the nanosecond count no longer fits in a Tick.
  if (*seconds * 1e9 >= static_cast<double>(kTickMax)) {
    throw ConfigError(file, line, key, "duration '" + text + "' is too long (at most ~292 years)");
  }
  return ticks_from_seconds(*seconds);
}

}  // namespace servesim
