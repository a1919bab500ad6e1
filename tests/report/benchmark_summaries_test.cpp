// The summary figures the GuideLLM and inference-perf writers carry, against values
// worked out by hand the way each tool computes them.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/metrics/guidellm_distribution.h"
#include "sim/report/benchmark/inference_perf_summary.h"

namespace benchmark_summaries_test {

using namespace servesim;

TEST_CASE("guidellm distribution: merged equal values - probability-weighted moments - first value reaching p",
          "[report][benchmark]") {
  // 1, 2, 2, 4: probabilities 1/4, 1/2, 1/4; cumulative 0.25, 0.75, 1.
  const auto d = guidellm_distribution({{1}, {2}, {2}, {4}});
  CHECK(d["mean"].get<double>() == 2.25);
  CHECK(d["mode"].get<double>() == 2.0);
  // (1.25^2 + 0.25^2 x 2 + 1.75^2) / 4 = 1.1875
  CHECK(d["variance"].get<double>() == Approx(1.1875).epsilon(1e-15));
  CHECK(d["std_dev"].get<double>() == Approx(std::sqrt(1.1875)).epsilon(1e-15));
  CHECK(d["min"].get<double>() == 1.0);
  CHECK(d["max"].get<double>() == 4.0);
  CHECK(d["count"].get<long long>() == 4);
  CHECK(d["total_sum"].get<double>() == 9.0);
  const auto& p = d["percentiles"];
  CHECK(p["p001"].get<double>() == 1.0);
  CHECK(p["p25"].get<double>() == 1.0);  // the cumulative 0.25 reaches 0.25: no interpolation
  CHECK(p["p50"].get<double>() == 2.0);
  CHECK(p["p75"].get<double>() == 2.0);
  CHECK(p["p90"].get<double>() == 4.0);
  CHECK(p["p999"].get<double>() == 4.0);
  CHECK(d["median"].get<double>() == 2.0);
  CHECK(d["pdf"].is_null());
}

TEST_CASE("guidellm distribution: weights - weight 0 dropped - no values", "[report][benchmark]") {
  // 10 x3, 20 x1, 30 x0: probabilities 0.75, 0.25; count 4.
  const auto d = guidellm_distribution({{10, 3}, {20, 1}, {30, 0}});
  CHECK(d["mean"].get<double>() == 12.5);
  CHECK(d["variance"].get<double>() == 18.75);  // 0.75 x 2.5^2 + 0.25 x 7.5^2
  CHECK(d["max"].get<double>() == 20.0);
  CHECK(d["count"].get<long long>() == 4);
  CHECK(d["percentiles"]["p75"].get<double>() == 10.0);
  CHECK(d["percentiles"]["p90"].get<double>() == 20.0);
  const auto empty = guidellm_distribution({});
  CHECK(empty["count"].get<long long>() == 0);
  CHECK(empty["mean"].get<double>() == 0.0);
  CHECK(empty["percentiles"]["p50"].get<double>() == 0.0);
  const auto weightless = guidellm_distribution({{5, 0}});
  CHECK(weightless["count"].get<long long>() == 0);
  CHECK(weightless["max"].get<double>() == 0.0);
  const auto by_status = guidellm_status_distribution({{1}}, {}, {{3}});
  CHECK(by_status["successful"]["mean"].get<double>() == 1.0);
  CHECK(by_status["incomplete"]["count"].get<long long>() == 0);
  CHECK(by_status["errored"]["mean"].get<double>() == 3.0);
  CHECK(by_status["total"]["mean"].get<double>() == 2.0);
  CHECK(by_status["total"]["count"].get<long long>() == 2);
}

TEST_CASE("inference-perf summarize: numpy's linear percentiles under the tool's key names", "[report][benchmark]") {
  const auto s = inference_perf_summarize({4, 1, 3, 2});
  CHECK(s["mean"].get<double>() == 2.5);
  CHECK(s["min"].get<double>() == 1.0);
  CHECK(s["max"].get<double>() == 4.0);
  CHECK(s["median"].get<double>() == 2.5);
  // rank p/100 x 3: p10 -> 0.3 -> 1.3; p90 -> 2.7 -> 3.7; p0.1 -> 0.003; p99.9 -> 2.997.
  CHECK(s["p10"].get<double>() == Approx(1.3).epsilon(1e-14));
  CHECK(s["p90"].get<double>() == Approx(3.7).epsilon(1e-14));
  CHECK(s["p0.1"].get<double>() == Approx(1.003).epsilon(1e-14));
  CHECK(s["p99.9"].get<double>() == Approx(3.997).epsilon(1e-14));
  CHECK(s["p1"].get<double>() == Approx(1.03).epsilon(1e-14));
  const std::vector<std::string> keys = {"mean", "min", "max", "p0.1", "p1", "p5", "p10", "p25",
                                         "median", "p75", "p90", "p95", "p99", "p99.9"};
  std::vector<std::string> written;
  for (const auto& item : s.items()) written.push_back(item.key());
  CHECK(written == keys);
  CHECK(inference_perf_summarize({}).is_null());
}

TEST_CASE("inference-perf computed metrics of one streamed request", "[report][benchmark]") {
  InferencePerfRequest r;
  r.start_s = 1.0;
  r.end_s = 2.0;
  r.prompt_tokens = 8;
  r.output_tokens = 3;
  r.token_times_s = {1.25, 1.5, 2.0};
  const auto m = inference_perf_computed_metrics(r);
  CHECK(m["request_latency"].get<double>() == 1.0);
  CHECK(m["normalized_time_per_output_token"].get<double>() == Approx(1.0 / 3).epsilon(1e-15));
  CHECK(m["time_to_first_token"].get<double>() == 0.25);
  CHECK(m["time_per_output_token"].get<double>() == 0.375);  // (2.0 - 1.25) / 2
  CHECK(m["inter_token_latency"].get<double>() == 0.375);
  CHECK(m["inter_token_latencies"] == nlohmann::ordered_json::array({0.25, 0.5}));
  // One token time is not a stream to the tool: no TTFT.
  r.token_times_s = {1.25};
  r.output_tokens = 1;
  CHECK(inference_perf_computed_metrics(r)["time_to_first_token"].is_null());
}

}  // namespace benchmark_summaries_test
