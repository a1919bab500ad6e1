#include "sim/workload/azure_trace_source.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "sim/core/errors.h"
#include "workload_test_util.h"

namespace azure_trace_test {

using namespace servesim;
using servesim::testing::repo_file;

namespace {

// Independent reading of an Azure trace: sscanf of each row, same-day timestamps turned into
// nanoseconds of the day with integer arithmetic.
struct Expected {
  std::int64_t rows = 0;
  long double input_sum = 0, output_sum = 0;
  std::int64_t span_ns = 0;
};

Expected parse_independently(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  Expected e;
  int first_date = -1;
  std::int64_t first_ns = 0, last_ns = 0;
  while (std::getline(in, line)) {
    int y, mo, d, h, mi, s;
    long long frac7, ctx, gen;
    REQUIRE(std::sscanf(line.c_str(), "%d-%d-%d %d:%d:%d.%7lld,%lld,%lld", &y, &mo, &d, &h, &mi, &s, &frac7, &ctx,
                        &gen) == 9);
    const int date = y * 10000 + mo * 100 + d;
    const std::int64_t ns = ((h * 3600LL + mi * 60LL + s) * 10'000'000LL + frac7) * 100;
    if (first_date < 0) {
      first_date = date;
      first_ns = ns;
    }
    REQUIRE(date == first_date);  // the 2023 traces cover one hour of one day
    last_ns = ns;
    ++e.rows;
    e.input_sum += ctx;
    e.output_sum += gen;
  }
  e.span_ns = last_ns - first_ns;
  return e;
}

ClassSpec azure_class(const std::string& path, double speedup) {
  ClassSpec spec;
  spec.name = "azure";
  spec.trace = TraceSpec{};  // fields by name: the spec grows
  spec.trace->format = "azure";
  spec.trace->path = path;
  spec.trace->speedup = speedup;
  return spec;
}

std::vector<RequestSpec> replay(RequestSource& source) {
  std::vector<RequestSpec> out;
  while (source.peek_arrival_ns()) out.push_back(source.pop());
  CHECK(source.exhausted());
  return out;
}

}  // namespace

TEST_CASE("azure trace: timestamps parse to nanoseconds since 1970", "[workload]") {
  // 2023-11-16 is day 19677 since 1970-01-01 (53 years incl. 13 leap days = 19358, plus 319
  // days into 2023); 18:15:46 is 65746 s into the day.
  const std::int64_t expected = (19677LL * 86400 + 65746) * 1'000'000'000 + 680'590'000;
  CHECK(parse_azure_timestamp_ns("2023-11-16 18:15:46.6805900") == expected);
  CHECK(parse_azure_timestamp_ns("2023-11-16T18:15:46.68059") == expected);
  CHECK(parse_azure_timestamp_ns("1970-01-01 00:00:00") == 0);
  CHECK(parse_azure_timestamp_ns("2024-02-29 00:00:00.5") == (19782LL * 86400) * 1'000'000'000 + 500'000'000);
  CHECK_FALSE(parse_azure_timestamp_ns("2023-02-29 00:00:00").has_value());
  CHECK_FALSE(parse_azure_timestamp_ns("2023-11-16 25:00:00").has_value());
  CHECK_FALSE(parse_azure_timestamp_ns("2023-11-16 18:15:46.").has_value());
  CHECK_FALSE(parse_azure_timestamp_ns("16/11/2023 18:15:46").has_value());
  CHECK_FALSE(parse_azure_timestamp_ns("").has_value());
}

TEST_CASE("azure trace: replaying the conv file gives every row with its lengths and its span", "[workload]") {
  const std::string path = repo_file("data/traces/azure_llm_2023_conv.csv");
  const Expected e = parse_independently(path);
  REQUIRE(e.rows == 19366);
  const auto source = make_source(azure_class(path, 1.0), 4, 1);
  const auto requests = replay(*source);
  REQUIRE(requests.size() == 19366);
  long double input_sum = 0, output_sum = 0;
  Tick previous = 0;
  for (const auto& r : requests) {
    REQUIRE(r.arrival_ns >= previous);
    REQUIRE(r.class_index == 4);
    REQUIRE(r.prompt_tokens >= 1);
    previous = r.arrival_ns;
    input_sum += r.prompt_tokens;
    output_sum += r.output_tokens;
  }
  CHECK(requests.front().arrival_ns == 0);
  CHECK(input_sum == e.input_sum);
  CHECK(output_sum == e.output_sum);
  CHECK(double(input_sum / 19366) == Approx(1155).margin(1));   // SOURCES.md: input mean 1155
  CHECK(double(output_sum / 19366) == Approx(211).margin(1));   // output mean 211
  CHECK(requests.back().arrival_ns == e.span_ns);
  CHECK(e.span_ns == 3'501'721'937'000);  // 18:15:46.6805900 to 19:14:08.4025270
}

TEST_CASE("azure trace: speedup 2 halves every arrival", "[workload]") {
  const std::string path = repo_file("data/traces/azure_llm_2023_code.csv");
  const auto normal = replay(*make_source(azure_class(path, 1.0), 0, 1));
  const auto fast = replay(*make_source(azure_class(path, 2.0), 0, 1));
  REQUIRE(normal.size() == 8819);
  REQUIRE(fast.size() == normal.size());
  for (std::size_t i = 0; i < normal.size(); ++i) {
    // Timestamps have 100 ns resolution, so halves are whole nanoseconds.
    REQUIRE(fast[i].arrival_ns * 2 == normal[i].arrival_ns);
    REQUIRE(fast[i].prompt_tokens == normal[i].prompt_tokens);
  }
  CHECK(normal.back().arrival_ns == parse_independently(path).span_ns);
}

TEST_CASE("azure trace: a trace class with an arrival process or an unknown format is a ConfigError", "[workload]") {
  ClassSpec spec = azure_class(repo_file("data/traces/azure_llm_2023_code.csv"), 1.0);
  spec.arrival = ArrivalSpec{};
  CHECK_THROWS_AS(make_source(spec, 0, 1), ConfigError);
  spec.arrival.reset();
  spec.trace->format = "parquet";
  CHECK_THROWS_WITH(make_source(spec, 0, 1), Catch::Contains("parquet") && Catch::Contains("azure"));
  spec.trace->format = "azure";
  spec.trace->speedup = 0;
  CHECK_THROWS_WITH(make_source(spec, 0, 1), Catch::Contains("speedup"));
}

}  // namespace azure_trace_test
