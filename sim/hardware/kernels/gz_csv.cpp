#include "sim/hardware/kernels/gz_csv.h"

#include <zlib.h>

#include <charconv>
#include <cstring>

#include "sim/core/errors.h"

namespace servesim {

namespace {

void split(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) {
      out.push_back(text.substr(start));
      return;
    }
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

GzCsvReader::GzCsvReader(std::string path) : path_(std::move(path)), buffer_(1 << 16) {
  file_ = gzopen(path_.c_str(), "rb");
  if (file_ == nullptr) throw ConfigError(path_, 0, "", "cannot open the kernel table: " + std::string(std::strerror(errno)));
  gzbuffer(static_cast<gzFile>(file_), 1 << 17);
  if (!read_line()) throw ConfigError(path_, 1, "", "the kernel table is empty (no header row)");
  std::vector<std::string_view> cells;
  split(line_text_, cells);
  for (std::string_view c : cells) header_.emplace_back(c);
}

GzCsvReader::~GzCsvReader() {
  if (file_ != nullptr) gzclose(static_cast<gzFile>(file_));
}

bool GzCsvReader::read_line() {
  line_text_.clear();
  gzFile f = static_cast<gzFile>(file_);
  while (true) {
    if (gzgets(f, buffer_.data(), static_cast<int>(buffer_.size())) == nullptr) {
      int err = 0;
      const char* message = gzerror(f, &err);
      if (err != Z_OK && err != Z_STREAM_END) {
        throw ConfigError(path_, line_ + 1, "", std::string("cannot read the kernel table: ") + message);
      }
      if (line_text_.empty()) return false;
      break;
    }
    line_text_ += buffer_.data();
    if (!line_text_.empty() && line_text_.back() == '\n') break;
  }
  while (!line_text_.empty() && (line_text_.back() == '\n' || line_text_.back() == '\r')) line_text_.pop_back();
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
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw ConfigError(path_, line_, header_[column], "expected a number, got '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace servesim
