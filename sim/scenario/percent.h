#pragma once
// Tolerances as users write them on the command line: "5%", "0.5%", "12.5 %".
#include <optional>
#include <string>

namespace servesim {

// The fraction ("5%" -> 0.05), or nullopt unless the text is a finite non-negative number
// followed by '%'. The sign is required so that "5" (5% or 500%?) is never guessed.
std::optional<double> parse_percent(const std::string& text);

// Parses like parse_percent or throws option_error(option, text, ...) (sim/core/errors.h).
double parse_percent_or_throw(const std::string& text, const std::string& option);

}  // namespace servesim
