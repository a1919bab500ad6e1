// The cache-curve report: its JSON list and console table, checked against values written
// out by hand from a small study.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "sim/report/cache_curve_report.h"

namespace cache_curve_report_test {

using namespace servesim;

namespace {

// Two sizes, 100 tokens and unlimited, over 3 requests of 1000 prompt tokens in all.
CacheCurveStudy two_sizes() {
  CacheCurveStudy study;
  study.requests = 3;
  study.prompt_tokens = 1000;
  study.block_tokens = 16;
  CacheCurvePoint small;
  small.size_tokens = 100;
  small.hit_tokens = 250;
  small.prompt_tokens = 1000;
  small.hit_ratio = 0.25;
  CacheCurvePoint unlimited;
  unlimited.size_tokens = kUnlimitedCacheTokens;
  unlimited.hit_tokens = 600;
  unlimited.prompt_tokens = 1000;
  unlimited.hit_ratio = 0.6;
  unlimited.tier_hit_tokens[0] = 100;
  unlimited.tier_hit_tokens[1] = 50;
  study.points = {small, unlimited};
  return study;
}

}  // namespace

TEST_CASE("cache-curve report: one JSON object per size with null for an unlimited cache", "[report][prefix]") {
  CacheCurveRequest request;
  const auto list = cache_curve_to_json(request, two_sizes());
  REQUIRE(list.size() == 2);
  CHECK(list[0].dump() == R"({"size_tokens":100,"hit_ratio":0.25,"hit_tokens":250,"prompt_tokens":1000})");
  CHECK(list[1].dump() == R"({"size_tokens":null,"hit_ratio":0.6,"hit_tokens":600,"prompt_tokens":1000})");
}

TEST_CASE("cache-curve report: KV tiers add each tier's hit tokens after the cache's", "[report][prefix]") {
  CacheCurveRequest request;
  request.tiers.cpu_tokens = 2000;
  const auto list = cache_curve_to_json(request, two_sizes());
  CHECK(list[0].dump() ==
        R"({"size_tokens":100,"hit_ratio":0.25,"hit_tokens":250,"prompt_tokens":1000,"cpu_hit_tokens":0,"disk_hit_tokens":0})");
  CHECK(list[1]["cpu_hit_tokens"] == 100);
  CHECK(list[1]["disk_hit_tokens"] == 50);
}

TEST_CASE("cache-curve report: the table right-aligns each column under its header", "[report][prefix]") {
  CacheCurveRequest request;
  std::ostringstream out;
  print_cache_curve_table(request, two_sizes(), out);
  CHECK(out.str() ==
        "cache-curve: 3 requests, 1000 prompt tokens, blocks of 16 tokens\n"
        "  size_tokens   hit_ratio   hit_tokens\n"
        "          100      0.2500          250\n"
        "          inf      0.6000          600\n");
}

TEST_CASE("cache-curve report: the table names the replicas and the tiers and shows each tier's hits",
          "[report][prefix]") {
  CacheCurveRequest request;
  request.replicas = 4;
  request.router = "prefix-affinity";
  request.tiers.cpu_tokens = 2000;
  request.tiers.disk_tokens = kUnlimitedCacheTokens;
  std::ostringstream out;
  print_cache_curve_table(request, two_sizes(), out);
  CHECK(out.str() ==
        "cache-curve: 3 requests, 1000 prompt tokens, blocks of 16 tokens, 4 replicas (prefix-affinity), KV tiers of "
        "2000 (CPU) and inf (disk) tokens below each cache\n"
        "  size_tokens   hit_ratio   hit_tokens   cpu_hit_tokens  disk_hit_tokens\n"
        "          100      0.2500          250                0                0\n"
        "          inf      0.6000          600              100               50\n");
}

}  // namespace cache_curve_report_test
