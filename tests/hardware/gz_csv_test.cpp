// The kernel tables' gzip CSV reader refuses a row wider than its header, as the trace
// reader does (sim/workload/csv_reader.cpp): "1,000" would be two cells and every value
// after it would land in the wrong column.
#include <zlib.h>

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/hardware/kernels/gz_csv.h"

namespace servesim {
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

}  // namespace servesim
