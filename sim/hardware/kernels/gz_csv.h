#pragma once
// Reads a gzip-compressed CSV file (the kernel tables in data/kernels/ ship as .csv.gz) one
// row at a time: plain RFC-4180 without quoting, a header row, no empty cells. zlib's gz*
// functions also read an uncompressed file, so a table unpacked by hand works the same.
// The file is inflated in 64 KiB blocks into one buffer and its rows are cut from that
// text in place (no copy per line): loading a pool's tables is most of a scenario's
// start-up. (Inflating a table whole into one string took ~900 more page faults per
// scenario, each costly under a hypervisor: slower, for fewer instructions.)
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace servesim {

class GzCsvReader {
 public:
  // Opens `path` and reads its header. Throws ConfigError naming the file when it cannot
  // be opened or has no header.
  explicit GzCsvReader(std::string path);
  ~GzCsvReader();
  GzCsvReader(const GzCsvReader&) = delete;
  GzCsvReader& operator=(const GzCsvReader&) = delete;

  const std::vector<std::string>& header() const { return header_; }
  // The index of column `name`. Throws ConfigError (file, line 1, the name) when absent.
  std::size_t column(const std::string& name) const;
  // The next data row's cells, valid until the next call; false at the end of the file.
  // Throws ConfigError (file, line) on a row with fewer cells than the header, and (file,
  // line, character column of the first extra cell) on one with more non-empty cells;
  // empty cells past the header (a trailing comma) are dropped.
  bool next(std::vector<std::string_view>& cells);
  int line() const { return line_; }  // 1-based line of the row `next` returned
  const std::string& path() const { return path_; }
  // A cell as a finite number; throws ConfigError (file, line, column name) when it is not one.
  double number(const std::vector<std::string_view>& cells, std::size_t column) const;
  // A cell as a finite number >= 0 (a measured time); throws ConfigError (file, line,
  // column name) otherwise.
  double non_negative(const std::vector<std::string_view>& cells, std::size_t column) const;
  // A cell as a whole number from 0 to int's maximum (a size or count a table is keyed
  // on); throws ConfigError (file, line, column name) otherwise.
  int whole_number(const std::vector<std::string_view>& cells, std::size_t column) const;

 private:
  bool read_line();

  std::string path_;
  void* file_ = nullptr;        // gzFile
  std::vector<char> buffer_;    // inflated text: [begin_, end_) not yet cut into lines
  std::size_t begin_ = 0, end_ = 0;
  bool at_end_ = false;         // the file has no more text
  std::string_view line_text_;  // the last line read, inside buffer_
  std::vector<std::string> header_;
  int line_ = 0;
};

}  // namespace servesim
