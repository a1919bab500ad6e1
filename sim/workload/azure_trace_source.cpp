#include "sim/workload/azure_trace_source.h"

namespace servesim {
namespace {

// Reads exactly `digits` decimal digits at text[pos]; false if any is not a digit.
bool read_digits(std::string_view text, std::size_t pos, int digits, int& value) {
  if (pos + static_cast<std::size_t>(digits) > text.size()) return false;
  value = 0;
  for (int i = 0; i < digits; ++i) {
    const char c = text[pos + static_cast<std::size_t>(i)];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

// Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian), after Howard Hinnant's
// "days_from_civil" (http://howardhinnant.github.io/date_algorithms.html).
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int days_in_month(int y, int m) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// A TIMESTAMP cell in ns since 1970.
std::int64_t azure_time_ns(const CsvReader& reader, int column) {
  const std::string_view stamp = reader.field(column);
  const std::optional<std::int64_t> ns = parse_azure_timestamp_ns(stamp);
  if (!ns) {
    reader.fail(column, "'" + std::string(stamp) + "' is not a timestamp like 2023-11-16 18:15:46.6805900 (years " +
                            std::to_string(kAzureFirstYear) + " to " + std::to_string(kAzureLastYear) + ")");
  }
  return *ns;
}

}  // namespace

std::optional<std::int64_t> parse_azure_timestamp_ns(std::string_view text) {
  // Layout: YYYY-MM-DD?HH:MM:SS[.f...] with ? a space or 'T'.
  int year, month, day, hour, minute, second;
  if (text.size() < 19) return std::nullopt;
  if (!read_digits(text, 0, 4, year) || text[4] != '-' || !read_digits(text, 5, 2, month) || text[7] != '-' ||
      !read_digits(text, 8, 2, day) || (text[10] != ' ' && text[10] != 'T') || !read_digits(text, 11, 2, hour) ||
      text[13] != ':' || !read_digits(text, 14, 2, minute) || text[16] != ':' || !read_digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  if (year < kAzureFirstYear || year > kAzureLastYear || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 ||
      second > 59) {
    return std::nullopt;
  }
  std::int64_t fraction_ns = 0;
  if (text.size() > 19) {
    const std::size_t digits = text.size() - 20;
    if (text[19] != '.' || digits < 1 || digits > 9) return std::nullopt;
    int value = 0;
    if (!read_digits(text, 20, static_cast<int>(digits), value)) return std::nullopt;
    fraction_ns = value;
    for (std::size_t i = digits; i < 9; ++i) fraction_ns *= 10;
  }
  const std::int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  return seconds * 1'000'000'000 + fraction_ns;
}

std::unique_ptr<CsvTraceSource> make_azure_trace_source(const std::string& path, double speedup, int class_index) {
  return std::make_unique<CsvTraceSource>(
      path, speedup, CsvTraceSource::TimeOrigin::first_row,
      [](const CsvReader& reader) {
        return std::make_unique<TimePromptOutputParser>(reader, "TIMESTAMP", "ContextTokens", "GeneratedTokens",
                                                        azure_time_ns);
      },
      class_index);
}

}  // namespace servesim
