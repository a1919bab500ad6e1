// The kernel tables' gzip CSV reader refuses a row wider than its header, as the trace
// reader does (sim/workload/csv_reader.cpp): "1,000" would be two cells and every value
// after it would land in the wrong column. Its numbers are std::from_chars's, bit for bit.
#include <zlib.h>

#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/hardware/kernels/gz_csv.h"

namespace servesim::gz_csv_test {
namespace {

std::string write_gz(const testing::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir.path / name).string();
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  REQUIRE(gzclose(f) == Z_OK);
  return path;
}

}  // namespace

TEST_CASE("gz csv: a row with more non-empty cells than the header is refused at its line and column",
          "[hardware][kernels][gz_csv]") {
  testing::TempDir dir("gz-csv-wide");
  // "1,4096,000,2.5": "1," is 2 characters and "4096," 5 more, so the third cell begins at
  // character 8 and the fourth ("2.5", the first beyond the 3-column header) at 12.
  const std::string path = write_gz(dir, "gemm_perf.csv.gz", "m,n,latency\n1,4096,2.5\n1,4096,000,2.5\n");
  GzCsvReader r(path);
  std::vector<std::string_view> cells;
  REQUIRE(r.next(cells));
  CHECK(r.number(cells, 2) == 2.5);
  try {
    r.next(cells);
    FAIL("a row of 4 cells under a 3-column header was read");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 3);
    CHECK(e.column() == 12);
    CHECK(std::string(e.what()).find("4 cells but the header names 3 columns") != std::string::npos);
    CHECK(std::string(e.what()).find(path + ":3:12") != std::string::npos);
  }
}

TEST_CASE("gz csv: empty cells past the header are dropped and a short row is refused", "[hardware][kernels][gz_csv]") {
  testing::TempDir dir("gz-csv-trailing");
  const std::string path = write_gz(dir, "t.csv.gz", "m,n,latency\n1,4096,2.5,\n1,4096\n");
  GzCsvReader r(path);
  std::vector<std::string_view> cells;
  REQUIRE(r.next(cells));
  REQUIRE(cells.size() == 3);
  CHECK(r.number(cells, 2) == 2.5);
  try {
    r.next(cells);
    FAIL("a row of 2 cells under a 3-column header was read");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find("expected 3 cells, got 2") != std::string::npos);
  }
}

TEST_CASE("gz csv: a cell's number is std::from_chars's bit for bit", "[hardware][kernels][gz_csv]") {
  // The reader's short-decimal path (up to 15 digits, no exponent) and from_chars for the
  // rest: every value must be from_chars's own, including -0, 15- and 16-digit values,
  // exponents and values near 2^53.
  std::vector<std::string> cells = {"0",       "-0",         "4096",          "0.5",          ".25",
                                    "2.5e-3",  "1E5",        "123456789012345", "1234567890123456",
                                    "9007199254740993", "0.000000000000001", "0.1", "-17.125",
                                    "3.14159265358979", "99999999999999.9", "1.0000000000000002"};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    const int digits = 1 + static_cast<int>(rng() % 17);
    std::string text;
    for (int d = 0; d < digits; ++d) text += static_cast<char>('0' + rng() % 10);
    const auto point = static_cast<std::size_t>(rng() % (text.size() + 1));
    if (point < text.size()) text.insert(point, ".");
    if (rng() % 4 == 0) text.insert(0, "-");
    cells.push_back(text);
  }
  std::string csv = "value\n";
  for (const std::string& c : cells) csv += c + "\n";
  testing::TempDir dir("gz-csv-numbers");
  GzCsvReader r(write_gz(dir, "numbers.csv.gz", csv));
  std::vector<std::string_view> row;
  for (const std::string& c : cells) {
    REQUIRE(r.next(row));
    double expected = 0;
    const auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), expected);
    REQUIRE(ec == std::errc());
    REQUIRE(end == c.data() + c.size());
    const double got = r.number(row, 0);
    INFO(c);
    REQUIRE(std::signbit(got) == std::signbit(expected));
    REQUIRE(got == expected);
  }
  CHECK_FALSE(r.next(row));
}

TEST_CASE("gz csv: text that is not a number is refused at its line and column name", "[hardware][kernels][gz_csv]") {
  testing::TempDir dir("gz-csv-nan-text");
  GzCsvReader r(write_gz(dir, "t.csv.gz", "m,latency\n1,2.5\n1,2.5x\n1,-\n"));
  std::vector<std::string_view> cells;
  REQUIRE(r.next(cells));
  CHECK(r.number(cells, 1) == 2.5);
  for (const int line : {3, 4}) {
    REQUIRE(r.next(cells));
    try {
      r.number(cells, 1);
      FAIL("a cell that is not a number was read as one");
    } catch (const ConfigError& e) {
      CHECK(e.line() == line);
      CHECK(std::string(e.what()).find("latency") != std::string::npos);
    }
  }
}

}  // namespace servesim::gz_csv_test
