#pragma once
// How figures that may be missing go into JSON output: as null, never as a made-up number.
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace servesim {

// A number, or null when it is not finite (a figure without samples).
inline nlohmann::ordered_json json_number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

// A number, or null when it is absent.
inline nlohmann::ordered_json json_number_or_null(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace servesim
