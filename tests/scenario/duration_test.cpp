// Durations as scenarios write them, converted to integer nanoseconds.
#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace servesim::duration_test {
namespace {

TEST_CASE("durations: units and bare numbers convert to nanoseconds", "[scenario]") {
  struct Row {
    const char* text;
    Tick ns;
  };
  const Row rows[] = {
      {"250ms", 250'000'000},    {"2s", 2'000'000'000},    {"1.5m", 90'000'000'000},
      {"1h", 3'600'000'000'000}, {"300us", 300'000},       {"10ns", 10},
      {"3", 3'000'000'000},      {"0.5", 500'000'000},     {"0", 0},
      {"2 s", 2'000'000'000},    {"1e3ms", 1'000'000'000}, {"2min", 120'000'000'000},
      {"0.1ms", 100'000},        {"0.25s", 250'000'000},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    CHECK(parse_duration(row.text, "f.yaml", 3, "k") == row.ns);
  }
  CHECK(parse_duration("7\xC2\xB5s", "f.yaml", 3, "k") == 7'000);  // micro sign
}

TEST_CASE("durations: malformed or negative values are ConfigErrors at the given place",
          "[scenario]") {
  const char* bad[] = {"5 parsecs", "",       "ms",       "-1s",    "nan", "inf",
                       ".inf",      "1.2.3s", "10 years", "1e400s", "s5",  "5ss"};
  for (const char* text : bad) {
    INFO(text);
    try {
      parse_duration(text, "f.yaml", 12, "workload.0.slo.ttft");
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(e.file() == "f.yaml");
      CHECK(e.line() == 12);
      CHECK(e.key() == "workload.0.slo.ttft");
      CHECK_THAT(e.message(), Catch::Contains("bad duration"));
    }
  }
  // Too long for int64 nanoseconds (~292 years).
  CHECK_THROWS_WITH(parse_duration("300y", "f", 1, "k"), Catch::Contains("bad duration"));
  CHECK_THROWS_WITH(parse_duration("3000000h", "f", 1, "k"), Catch::Contains("too long"));
}

}  // namespace
}  // namespace servesim::duration_test
