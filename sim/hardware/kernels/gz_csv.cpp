#include "sim/hardware/kernels/gz_csv.h"

#include <zlib.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "sim/core/errors.h"

namespace servesim {

namespace {

void split(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  const char* at = text.data();
  const char* const end = at + text.size();
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(at, ',', static_cast<std::size_t>(end - at)));
    if (comma == nullptr) {
      out.emplace_back(at, static_cast<std::size_t>(end - at));
      return;
    }
    out.emplace_back(at, static_cast<std::size_t>(comma - at));
    at = comma + 1;
  }
}

// zlib's message for a failed read, as gzerror gives it.
std::string gz_read_error(gzFile f) {
  int err = 0;
  const char* message = gzerror(f, &err);
  return std::string("cannot read the kernel table: ") + (message ? message : "unknown error");
}

// Most cells are short decimals ("0.01234", "4096"): with at most 15 digits and no
// exponent the value is the integer of its digits (exact in a double) divided by a power
// of ten up to 10^22 (exact too), and one IEEE division rounds that correctly, as
// std::from_chars does (Clinger's fast path). False for anything else, which from_chars
// reads.
bool parse_short_decimal(std::string_view text, double& value) {
  static constexpr double kPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  std::uint64_t digits = 0;
  const char* const whole_from = p;
  for (; p != end && static_cast<unsigned char>(*p - '0') < 10; ++p) digits = digits * 10 + static_cast<std::uint64_t>(*p - '0');
  auto count = p - whole_from;
  std::ptrdiff_t fraction = -1;  // digits after the point, -1 without a point
  if (p != end) {
    if (*p != '.') return false;
    const char* const fraction_from = ++p;
    for (; p != end && static_cast<unsigned char>(*p - '0') < 10; ++p) digits = digits * 10 + static_cast<std::uint64_t>(*p - '0');
    if (p != end) return false;
    fraction = p - fraction_from;
    count += fraction;
  }
  if (count == 0 || count > 15 || fraction == 0) return false;  // "1." and "." to from_chars
  double v = static_cast<double>(digits);
  if (fraction > 0) v /= kPowers[fraction];
  value = negative ? -v : v;
  return true;
}

}  // namespace

GzCsvReader::GzCsvReader(std::string path) : path_(std::move(path)), buffer_(1 << 16) {
  file_ = gzopen(path_.c_str(), "rb");
  if (file_ == nullptr) throw ConfigError(path_, 0, "", "cannot open the kernel table: " + std::string(std::strerror(errno)));
  // A constructor that throws runs no destructor: the file is closed here on the way out.
  try {
    gzbuffer(static_cast<gzFile>(file_), 1 << 16);
    if (!read_line()) throw ConfigError(path_, 1, "", "the kernel table is empty (no header row)");
    std::vector<std::string_view> cells;
    split(line_text_, cells);
    for (std::string_view c : cells) header_.emplace_back(c);
  } catch (...) {
    gzclose(static_cast<gzFile>(file_));
    file_ = nullptr;
    throw;
  }
}

GzCsvReader::~GzCsvReader() {
  if (file_ != nullptr) gzclose(static_cast<gzFile>(file_));
}

bool GzCsvReader::read_line() {
  gzFile f = static_cast<gzFile>(file_);
  const char* start = nullptr;
  std::size_t length = 0;
  while (true) {
    const char* text = buffer_.data() + begin_;
    if (const void* newline = std::memchr(text, '\n', end_ - begin_)) {
      start = text;
      length = static_cast<std::size_t>(static_cast<const char*>(newline) - text);
      begin_ += length + 1;
      break;
    }
    if (at_end_) {
      if (begin_ == end_) return false;
      start = text;  // a last line without a newline
      length = end_ - begin_;
      begin_ = end_;
      break;
    }
    // The partial line to the front, then more text after it (a buffer twice the size
    // for a line longer than it).
    std::memmove(buffer_.data(), text, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
    if (end_ == buffer_.size()) buffer_.resize(2 * buffer_.size());
    const int got = gzread(f, buffer_.data() + end_, static_cast<unsigned>(buffer_.size() - end_));
    if (got < 0) throw ConfigError(path_, line_ + 1, "", gz_read_error(f));
    if (got == 0) at_end_ = true;
    end_ += static_cast<std::size_t>(got);
  }
  while (length > 0 && (start[length - 1] == '\n' || start[length - 1] == '\r')) --length;
  line_text_ = std::string_view(start, length);
  ++line_;
  return true;
}

std::size_t GzCsvReader::column(const std::string& name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  throw ConfigError(path_, 1, name, "the kernel table has no column '" + name + "'");
}

bool GzCsvReader::next(std::vector<std::string_view>& cells) {
  do {
    if (!read_line()) return false;
  } while (line_text_.empty());
  split(line_text_, cells);
  // More cells than the header names would shift a value into the wrong column unseen, as
  // in the trace reader (sim/workload/csv_reader.cpp): refused at the first extra cell that
  // holds something. Empty trailing cells (a trailing comma) are harmless and dropped.
  if (cells.size() > header_.size()) {
    for (std::size_t i = header_.size(); i < cells.size(); ++i) {
      if (cells[i].empty()) continue;
      throw ConfigError(path_, line_, "",
                        "the row has " + std::to_string(cells.size()) + " cells but the header names " +
                            std::to_string(header_.size()) +
                            " columns; is there a comma inside a value (write 1000, not 1,000)?",
                        static_cast<int>(cells[i].data() - line_text_.data()) + 1);
    }
    cells.resize(header_.size());
  }
  if (cells.size() < header_.size()) {
    throw ConfigError(path_, line_, "", "expected " + std::to_string(header_.size()) + " cells, got " +
                                            std::to_string(cells.size()));
  }
  return true;
}

double GzCsvReader::number(const std::vector<std::string_view>& cells, std::size_t column) const {
  const std::string_view text = cells[column];
  double value = 0;
  if (parse_short_decimal(text, value)) return value;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw ConfigError(path_, line_, header_[column], "expected a number, got '" + std::string(text) + "'");
  }
  // from_chars reads "nan" and "inf": a grid cannot sort or interpolate them.
  if (!std::isfinite(value)) {
    throw ConfigError(path_, line_, header_[column], "expected a finite number, got '" + std::string(text) + "'");
  }
  return value;
}

double GzCsvReader::non_negative(const std::vector<std::string_view>& cells, std::size_t column) const {
  const double value = number(cells, column);
  if (value < 0) {
    throw ConfigError(path_, line_, header_[column], "expected a number >= 0, got '" + std::string(cells[column]) + "'");
  }
  return value;
}

int GzCsvReader::whole_number(const std::vector<std::string_view>& cells, std::size_t column) const {
  const double value = number(cells, column);
  // Converting a double outside int's range to int is undefined behaviour, not an error.
  if (!(value >= 0 && value <= std::numeric_limits<int>::max()) || value != std::floor(value)) {
    throw ConfigError(path_, line_, header_[column],
                      "expected a whole number from 0 to 2147483647, got '" + std::string(cells[column]) + "'");
  }
  return static_cast<int>(value);
}

}  // namespace servesim
