#include "sim/scenario/percent.h"

#include <cmath>
#include <cstdlib>

#include "sim/core/errors.h"

namespace servesim {

std::optional<double> parse_percent(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.erase(t.begin());
  if (t.size() < 2 || t.back() != '%') return std::nullopt;
  t.pop_back();
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (t.empty() || t.find_first_not_of("0123456789.eE+-") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v / 100.0;
}

double parse_percent_or_throw(const std::string& text, const std::string& option) {
  if (auto v = parse_percent(text)) return *v;
  throw option_error(option, text, "expected a non-negative percentage with a % sign, e.g. 5% or 0.5%");
}

}  // namespace servesim
