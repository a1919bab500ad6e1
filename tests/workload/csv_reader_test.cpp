// CsvReader's dialect: quoted fields keep their commas and "" quotes (the report writers
// quote names that way), and a row with more non-empty cells than the header is refused,
// since its values would otherwise land in the wrong columns without a word.
#include <catch2/catch.hpp>

#include <string>

#include "sim/core/errors.h"
#include "sim/workload/csv_reader.h"
#include "workload_test_util.h"

namespace csv_reader_test {

using namespace servesim;
using servesim::testing::TempFile;

namespace {

std::string error_reading(const std::string& path) {
  try {
    CsvReader r(path);
    while (r.next_row()) {
    }
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("csv reader: a quoted field keeps its commas and its doubled quotes", "[workload]") {
  TempFile file("quoted.csv", "id,class,ms\r\n1,\"chat, eu\",2.5\r\n2, \"say \"\"hi\"\"\" ,3\r\n3,plain,4\r\n");
  CsvReader r(file.path());
  const int id = r.column("id"), cls = r.column("class"), ms = r.column("ms");
  REQUIRE(r.next_row());
  CHECK(r.field(cls) == "chat, eu");
  CHECK(r.number(ms) == 2.5);
  REQUIRE(r.next_row());
  CHECK(r.field(cls) == "say \"hi\"");
  CHECK(r.number(ms) == 3);
  REQUIRE(r.next_row());
  CHECK(r.whole_number(id, 0) == 3);
  CHECK(r.field(cls) == "plain");
  CHECK_FALSE(r.next_row());
}

TEST_CASE("csv reader: a row with more cells than the header is refused - a trailing comma is not", "[workload]") {
  // "1,000" meant a thousand: read by position it would be 1 prompt token and 0 outputs.
  TempFile thousands("thousands.csv", "num_prefill_tokens,num_decode_tokens\n10,1\n1,000,5\n");
  const std::string e = error_reading(thousands.path());
  CHECK_THAT(e, Catch::Contains(thousands.path() + ":3:7") &&
                    Catch::Contains("the row has 3 fields but the header names 2 columns") &&
                    Catch::Contains("1,000"));
  TempFile trailing("trailing.csv", "a,b\n1,2,\n3,4, ,\n");
  CHECK(error_reading(trailing.path()).empty());
  TempFile open_quote("open_quote.csv", "a,b\n\"1,2\n");
  CHECK_THAT(error_reading(open_quote.path()), Catch::Contains(open_quote.path() + ":2:1") &&
                                                   Catch::Contains("quoted field must end with a quote"));
}

}  // namespace csv_reader_test
