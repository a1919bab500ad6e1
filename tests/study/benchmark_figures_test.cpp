// Benchmark figures: numpy's linear percentiles and vLLM's TPOT, worked out by hand.
#include <cmath>

#include <catch2/catch.hpp>

#include "sim/study/benchmark_figures.h"

namespace benchmark_figures_test {

using namespace servesim;

TEST_CASE("latency_figures interpolates percentiles linearly as numpy does", "[study][replay]") {
  // numpy.percentile([1, 2, 3, 4, 10], q): position q/100 x 4.
  //   p50 -> 3; p90 -> 3.6 -> 4 + 0.6 x (10 - 4) = 7.6; p99 -> 3.96 -> 4 + 0.96 x 6 = 9.76
  const auto f = latency_figures({10, 2, 4, 1, 3});
  REQUIRE(f);
  CHECK(f->mean_ms == Approx(4.0));
  CHECK(f->p50_ms == Approx(3.0));
  CHECK(f->p90_ms == Approx(7.6));
  CHECK(f->p99_ms == Approx(9.76));
  CHECK(f->samples == 5);
  CHECK_FALSE(latency_figures({}));
  const auto one = latency_figures({7});
  CHECK(one->p99_ms == 7);
}

TEST_CASE("benchmark_figures takes TPOT over requests with two or more tokens and throughput over the span",
          "[study][replay]") {
  // ttft 100 ms, e2el 1,100 ms, 11 tokens -> TPOT (1100 - 100) / 10 = 100 ms
  // ttft 200 ms, e2el 500 ms, 4 tokens -> TPOT 100 ms
  // ttft 50 ms, e2el 50 ms, 1 token -> no TPOT
  const std::vector<RequestLatency> requests = {
      {100'000'000, 1'100'000'000, 11}, {200'000'000, 500'000'000, 4}, {50'000'000, 50'000'000, 1}};
  const BenchmarkFigures f = benchmark_figures(requests, 2.0, std::vector<double>{5, 15});
  CHECK(f.completed == 3);
  CHECK(f.ttft->mean_ms == Approx(350.0 / 3));
  CHECK(f.tpot->samples == 2);
  CHECK(f.tpot->mean_ms == Approx(100));
  CHECK(f.e2el->p50_ms == Approx(500));
  CHECK(f.itl->mean_ms == Approx(10));
  CHECK(f.request_throughput_per_s == Approx(1.5));
  CHECK(f.output_throughput_per_s == Approx(8.0));  // 16 tokens over 2 s
  const BenchmarkFigures no_span = benchmark_figures(requests, 0, std::nullopt);
  CHECK_FALSE(no_span.itl);
  CHECK(no_span.request_throughput_per_s == 0);
}

TEST_CASE("compare_figures lists the figures both sides have with signed errors", "[study][replay]") {
  const BenchmarkFigures measured = benchmark_figures({{100'000'000, 300'000'000, 3}}, 1.0, std::vector<double>{100, 100});
  const BenchmarkFigures simulated = benchmark_figures({{110'000'000, 290'000'000, 3}}, 1.25, std::nullopt);
  const auto rows = compare_figures(measured, simulated);
  // ttft x4, tpot x4, e2el x4, two throughputs; no ITL (the simulated side has none).
  REQUIRE(rows.size() == 14);
  CHECK(rows[0].figure == "ttft_mean_ms");
  CHECK(rows[0].error == Approx(0.10));
  CHECK(rows[4].figure == "tpot_mean_ms");
  CHECK(rows[4].error == Approx(90.0 / 100 - 1));  // (290 - 110) / 2 = 90 vs 100
  CHECK(rows[12].figure == "request_throughput");
  CHECK(rows[12].error == Approx(0.8 - 1));
}

}  // namespace benchmark_figures_test
