#pragma once
// Small text helpers used by several parsers and writers.
#include <cctype>
#include <cstdio>
#include <sstream>
#include <string>

namespace servesim {

// `s` without leading and trailing spaces and tabs.
inline std::string trim_blanks(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// `s` with ASCII letters in lower case (names, units and keys compared case-insensitively).
inline std::string ascii_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The top-level key a YAML line sets ("gemm_efficiency: 0.6  # ..." -> "gemm_efficiency"),
// or "" for an indented, comment or blank line.
inline std::string yaml_top_level_key(const std::string& line) {
  if (line.empty() || line[0] == ' ' || line[0] == '#' || line[0] == '\t') return "";
  const auto colon = line.find(':');
  return colon == std::string::npos ? "" : line.substr(0, colon);
}

// One CSV cell (RFC 4180): the text as it is, or quoted with its quotes doubled when it holds
// a comma, a quote or a line break.
inline std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

// A share as a percentage with three significant digits ("12.5%", "0.333%").
inline std::string percent_3sig(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", 100 * share);
  return buf;
}

// `value` with 17 significant digits: what a file held, for an error message that quotes it.
inline std::string exact_number_text(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace servesim
