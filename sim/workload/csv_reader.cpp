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

int CsvReader::find_column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int CsvReader::column(std::string_view name) const {
  if (const int i = find_column(name); i >= 0) return i;
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
    // More cells than the header names would shift a value into the wrong column unseen:
    // "1,000" for a thousand is two cells. Empty trailing cells (a trailing comma) are harmless.
    for (std::size_t i = header_.size(); i < fields_.size(); ++i) {
      if (fields_[i].second == 0) continue;
      throw ConfigError(path_, line_, "",
                        "the row has " + std::to_string(fields_.size()) + " fields but the header names " +
                            std::to_string(header_.size()) +
                            " columns; is there a comma inside a value (write 1000, not 1,000; quote text)?",
                        static_cast<int>(fields_[i].first) + 1);
    }
    return true;
  }
  return false;
}

void CsvReader::split_line() {
  fields_.clear();
  const std::size_t n = line_text_.size();
  std::size_t start = 0;
  for (;;) {
    std::size_t b = start;
    while (b < n && is_blank(line_text_[b])) ++b;
    std::size_t end = 0;
    if (b < n && line_text_[b] == '"') {
      // A quoted field: its commas are its own and "" is one quote (RFC 4180), as the report
      // writers quote a name (requests.csv's class). Unescaped in place: the text only
      // shrinks, and the fields to its right keep their offsets.
      std::size_t w = b + 1, r = b + 1;
      bool closed = false;
      while (r < n) {
        if (line_text_[r] == '"') {
          if (r + 1 < n && line_text_[r + 1] == '"') {
            line_text_[w++] = '"';
            r += 2;
            continue;
          }
          closed = true;
          ++r;
          break;
        }
        line_text_[w++] = line_text_[r++];
      }
      end = r;
      while (end < n && is_blank(line_text_[end])) ++end;
      if (!closed || (end < n && line_text_[end] != ',')) {
        throw ConfigError(path_, line_, "",
                          "a quoted field must end with a quote before the next comma (a quote inside one is "
                          "written \"\")",
                          static_cast<int>(b) + 1);
      }
      fields_.emplace_back(b + 1, w - (b + 1));
    } else {
      end = line_text_.find(',', b);
      if (end == std::string::npos) end = n;
      std::size_t e = end;
      while (e > b && is_blank(line_text_[e - 1])) --e;
      fields_.emplace_back(b, e - b);
    }
    if (end >= n) break;
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
