#pragma once
// Streams a comma-separated file one row at a time, so a trace of millions of rows is never
// held in memory. Columns are found by header name (any order, extra columns ignored), and
// every bad cell becomes a ConfigError naming file:line:col and the column's header name.
//
// Dialect: one header line, then one row per line; `\n` or `\r\n` line ends; a UTF-8 byte
// order mark is skipped; blank lines are skipped; fields are trimmed of spaces; a field in
// double quotes may hold commas, and "" inside it is one quote (RFC 4180; a field does not
// span lines). A row with more non-empty cells than the header is refused: its values would
// land in the wrong columns.
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace servesim {

class CsvReader {
 public:
  // Opens `path` and reads its header. Throws ConfigError if the file cannot be opened or is
  // empty.
  explicit CsvReader(std::string path);

  // Index of the column named `name` in the header. Throws ConfigError naming the column and
  // listing the header when it is absent.
  int column(std::string_view name) const;
  // Index of the column named `name`, or -1 when the header has none (an optional column).
  int find_column(std::string_view name) const;

  // Moves to the next non-blank data row; false at end of file.
  bool next_row();

  // 1-based line number of the current row (the header is line 1).
  int line() const { return line_; }
  const std::string& path() const { return path_; }

  // The trimmed text of `column` in the current row. Throws ConfigError if the row is short.
  std::string_view field(int column) const;
  // The cell as a finite number. Throws ConfigError when it is empty or not a number.
  double number(int column) const;
  // The cell as a whole number >= min_value (e.g. "374" or "374.0"). Throws ConfigError
  // otherwise.
  std::int64_t whole_number(int column, std::int64_t min_value) const;

  // Throws ConfigError(path, line, column name, message, character column of the cell).
  [[noreturn]] void fail(int column, const std::string& message) const;

 private:
  // Splits line_text_ into trimmed fields (offset, length).
  void split_line();

  std::string path_;
  std::ifstream in_;
  std::vector<std::string> header_;
  std::string line_text_;
  std::vector<std::pair<std::size_t, std::size_t>> fields_;
  int line_ = 0;
};

}  // namespace servesim
