#include "sim/workload/csv_reader.h"

#include <charconv>
#include <cmath>

#include "sim/core/assert.h"
#include "sim/core/bounded_line.h"
#include "sim/core/errors.h"

namespace servesim {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Strips `\r` (Windows line ends: the Azure traces use them) and, on line 1, a UTF-8 BOM.
void clean_line(std::string& text, bool first_line) {
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (first_line && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
}

bool all_blank(const std::string& text) {
  for (char c : text) {
    if (!is_blank(c)) return false;
  }
  return true;
}

constexpr const char* kTooLong = "the line is longer than 16 MiB: not a CSV trace?";

}  // namespace

CsvReader::CsvReader(std::string path) : path_(std::move(path)), in_(path_) {
  if (!in_) throw ConfigError(path_, 0, "", "cannot open the file for reading");
  const LineRead header = read_bounded_line(in_, line_text_);
  if (header == LineRead::end) throw ConfigError(path_, 1, "", "the file is empty; expected a CSV header");
  line_ = 1;
  if (header == LineRead::too_long) throw ConfigError(path_, 1, "", kTooLong);
  clean_line(line_text_, true);
  split_line();
  for (const auto& [offset, length] : fields_) header_.emplace_back(line_text_.substr(offset, length));
}

int CsvReader::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return static_cast<int>(i);
  }
  std::string found;
  for (const auto& h : header_) found += (found.empty() ? "" : ",") + h;
  throw ConfigError(path_, 1, std::string(name),
                    "column '" + std::string(name) + "' is missing from the header (found: " + found + ")");
}

bool CsvReader::next_row() {
  for (;;) {
    const LineRead got = read_bounded_line(in_, line_text_);
    if (got == LineRead::end) break;
    ++line_;
    if (got == LineRead::too_long) throw ConfigError(path_, line_, "", kTooLong);
    clean_line(line_text_, false);
    if (all_blank(line_text_)) continue;
    split_line();
    return true;
  }
  return false;
}

void CsvReader::split_line() {
  fields_.clear();
  std::size_t start = 0;
  for (;;) {
    std::size_t end = line_text_.find(',', start);
    if (end == std::string::npos) end = line_text_.size();
    std::size_t b = start, e = end;
    while (b < e && is_blank(line_text_[b])) ++b;
    while (e > b && is_blank(line_text_[e - 1])) --e;
    if (e - b >= 2 && line_text_[b] == '"' && line_text_[e - 1] == '"') {
      ++b;
      --e;
    }
    fields_.emplace_back(b, e - b);
    if (end == line_text_.size()) break;
    start = end + 1;
  }
}

std::string_view CsvReader::field(int column) const {
  SS_ASSERT(column >= 0 && static_cast<std::size_t>(column) < header_.size(), "column index from column()");
  if (static_cast<std::size_t>(column) >= fields_.size()) {
    throw ConfigError(path_, line_, header_[column],
                      "the row has " + std::to_string(fields_.size()) + " fields; column '" +
                          header_[column] + "' is field " + std::to_string(column + 1));
  }
  const auto& [offset, length] = fields_[column];
  return std::string_view(line_text_).substr(offset, length);
}

double CsvReader::number(int column) const {
  const std::string_view text = field(column);
  if (text.empty()) fail(column, "the cell is empty; expected a number");
  double value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;  // from_chars refuses a leading '+'
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || !std::isfinite(value)) {
    fail(column, "'" + std::string(text) + "' is not a number");
  }
  return value;
}

std::int64_t CsvReader::whole_number(int column, std::int64_t min_value) const {
  const double value = number(column);
  if (value != std::floor(value) || std::fabs(value) > 9.0e15) {
    fail(column, "'" + std::string(field(column)) + "' is not a whole number");
  }
  const auto count = static_cast<std::int64_t>(value);
  if (count < min_value) {
    fail(column, "'" + std::string(field(column)) + "' must be at least " + std::to_string(min_value));
  }
  return count;
}

void CsvReader::fail(int column, const std::string& message) const {
  SS_ASSERT(column >= 0 && static_cast<std::size_t>(column) < header_.size(), "column index from column()");
  const int char_column =
      static_cast<std::size_t>(column) < fields_.size() ? static_cast<int>(fields_[column].first) + 1 : 0;
  throw ConfigError(path_, line_, header_[column], message, char_column);
}

}  // namespace servesim
