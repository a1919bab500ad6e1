// BenchmarkSource: a benchmark run's succeeded requests at the file's send times, or at
// times generated as the tool generated them (all at once, gamma gaps, a concurrency cap,
// stages in turn).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "sim/workload/benchmark/benchmark_source.h"
#include "workload/workload_test_util.h"

namespace benchmark_source_test {

using namespace servesim;
using servesim::testing::moments_of;
using servesim::testing::repo_file;

namespace {

BenchmarkStage stage_of(std::optional<double> rate, double burstiness = 1.0, std::optional<int> cap = std::nullopt) {
  BenchmarkStage s;
  s.name = "test";
  s.rate_per_s = rate;
  s.burstiness = burstiness;
  s.max_concurrency = cap;
  return s;
}

BenchmarkRequest request(std::int64_t prompt, std::int64_t output, int stage = 0, bool ok = true) {
  BenchmarkRequest r;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.stage = stage;
  r.succeeded = ok;
  if (!ok) r.error = "boom";
  return r;
}

BenchmarkSource source_of(const BenchmarkRun& run, std::optional<int> stage = std::nullopt, double speedup = 1.0,
                          std::uint64_t seed = 7) {
  return BenchmarkSource(run, stage, speedup, Rng(seed, "workload/c/arrival"), 0, "workload.c.trace.");
}

// Pops everything the source offers without finishing anything (no cap in the way).
std::vector<RequestSpec> drain(BenchmarkSource& source) {
  std::vector<RequestSpec> out;
  while (source.peek_arrival_ns()) out.push_back(source.pop());
  return out;
}

std::string config_error_key(const BenchmarkRun& run, std::optional<int> stage, double speedup = 1.0) {
  try {
    source_of(run, stage, speedup);
  } catch (const ConfigError& e) {
    return e.key() + ": " + e.message();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("benchmark source: send times are replayed exactly and divided by the speedup", "[workload][benchmark]") {
  // Five requests sent at 0, 0, 250, 312.5 and 406.25 ms; the file's max_concurrency 2
  // shaped those times already, so nothing holds them back.
  const BenchmarkRun run = read_benchmark(repo_file("tests/data/benchmarks/vllm_bench_inf_concurrency.json"));
  BenchmarkSource source = source_of(run);
  CHECK(source.uses_send_times());
  const std::vector<RequestSpec> sent = drain(source);
  REQUIRE(sent.size() == 5);
  const std::vector<Tick> arrivals = {0, 0, 250'000'000, 312'500'000, 406'250'000};
  const std::vector<std::int64_t> outputs = {3, 5, 2, 1, 3};
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(sent[i].arrival_ns == arrivals[i]);
    CHECK(sent[i].prompt_tokens == 1024);
    CHECK(sent[i].output_tokens == outputs[i]);
  }
  CHECK(source.exhausted());

  BenchmarkSource faster = source_of(run, std::nullopt, 2.0);
  const std::vector<RequestSpec> halved = drain(faster);
  REQUIRE(halved.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) CHECK(halved[i].arrival_ns == arrivals[i] / 2);
}

TEST_CASE("benchmark source: failed requests are not sent and are counted", "[workload][benchmark]") {
  BenchmarkRun run;
  run.path = "run.json";
  run.stages = {stage_of(std::nullopt)};
  run.requests = {request(10, 1), request(20, 2, 0, false), request(30, 3)};
  run.requests[0].start_ns = 1'000;
  run.requests[1].start_ns = 500;  // the first send, though it failed: the origin
  run.requests[2].start_ns = 3'000;
  BenchmarkSource source = source_of(run);
  CHECK(source.failed_requests() == 1);
  CHECK(source.replayed_requests() == 2);
  const std::vector<RequestSpec> sent = drain(source);
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].arrival_ns == 500);
  CHECK(sent[0].prompt_tokens == 10);
  CHECK(sent[1].arrival_ns == 2'500);
  CHECK(sent[1].prompt_tokens == 30);
}

TEST_CASE("benchmark source: requests go in the file's order even where a send time goes back",
          "[workload][benchmark]") {
  BenchmarkRun run;
  run.path = "run.json";
  run.stages = {stage_of(std::nullopt)};
  run.requests = {request(1, 1), request(2, 1), request(3, 1)};
  run.requests[0].start_ns = 0;
  run.requests[1].start_ns = 300;
  run.requests[2].start_ns = 200;  // offered after the 300 ns one; the simulation sends it then
  BenchmarkSource source = source_of(run);
  const std::vector<RequestSpec> sent = drain(source);
  REQUIRE(sent.size() == 3);
  CHECK(sent[1].prompt_tokens == 2);
  CHECK(sent[2].prompt_tokens == 3);
  CHECK(sent[2].arrival_ns == 200);
}

TEST_CASE("benchmark source: request rate inf sends every request at once", "[workload][benchmark]") {
  BenchmarkRun run;
  run.path = "run.json";
  run.stages = {stage_of(std::nullopt)};
  for (int i = 0; i < 10; ++i) run.requests.push_back(request(100 + i, 5, 0, i != 4));
  BenchmarkSource source = source_of(run);
  CHECK_FALSE(source.uses_send_times());
  const std::vector<RequestSpec> sent = drain(source);
  REQUIRE(sent.size() == 9);
  for (const RequestSpec& r : sent) CHECK(r.arrival_ns == 0);
  CHECK(sent[4].prompt_tokens == 105);  // file order, the failed 104 left out
  CHECK(source.failed_requests() == 1);
}

TEST_CASE("benchmark source: gamma gaps with the file's rate and burstiness", "[workload][benchmark]") {
  // vllm draws gamma(shape = burstiness, scale = 1 / (rate x burstiness)) per request and
  // scales the sum to N / rate: the last request goes at exactly N / rate, the gaps have
  // mean 1 / rate and coefficient of variation 1 / sqrt(burstiness).
  const int n = 20'000;
  const double rate = 5.0;
  for (const double burstiness : {0.25, 1.0, 4.0}) {
    INFO("burstiness " << burstiness);
    BenchmarkRun run;
    run.path = "run.json";
    run.stages = {stage_of(rate, burstiness)};
    run.requests.assign(n, request(10, 10));
    BenchmarkSource source = source_of(run);
    const std::vector<RequestSpec> sent = drain(source);
    REQUIRE(sent.size() == static_cast<std::size_t>(n));
    CHECK(sent.front().arrival_ns > 0);  // the first request waits one gap, as in vllm
    CHECK(std::llabs(sent.back().arrival_ns - static_cast<Tick>(n / rate * 1e9)) <= 1);
    std::vector<double> gaps_s;
    Tick previous = 0;
    for (const RequestSpec& r : sent) {
      REQUIRE(r.arrival_ns >= previous);
      gaps_s.push_back(static_cast<double>(r.arrival_ns - previous) * 1e-9);
      previous = r.arrival_ns;
    }
    const servesim::testing::Moments m = moments_of(gaps_s);
    CHECK(std::fabs(m.mean - 1.0 / rate) < 1e-9);
    // cv^2 = s^2 / mean^2 against 1 / k; five standard errors of the ratio for gamma gaps
    // (kurtosis 3 + 6/k; the mean's share 4/k, taken with the worst sign).
    const double k = burstiness;
    const double cv2 = m.variance / (m.mean * m.mean);
    const double tolerance = 5.0 * (1.0 / k) * std::sqrt((2.0 + 6.0 / k + 4.0 / k) / n);
    CHECK(std::fabs(cv2 - 1.0 / k) < tolerance);
  }
}

TEST_CASE("benchmark source: the arrivals follow the seed and not numpy", "[workload][benchmark]") {
  BenchmarkRun run;
  run.path = "run.json";
  run.stages = {stage_of(2.0)};
  run.requests.assign(50, request(10, 10));
  BenchmarkSource a = source_of(run, std::nullopt, 1.0, 1), b = source_of(run, std::nullopt, 1.0, 1),
                  c = source_of(run, std::nullopt, 1.0, 2);
  const auto ta = drain(a), tb = drain(b), tc = drain(c);
  CHECK(ta[10].arrival_ns == tb[10].arrival_ns);
  CHECK(ta[10].arrival_ns != tc[10].arrival_ns);
}

TEST_CASE("benchmark source: max_concurrency holds requests until one finishes", "[workload][benchmark]") {
  BenchmarkRun run;
  run.path = "run.json";
  run.stages = {stage_of(std::nullopt, 1.0, 2)};
  run.requests = {request(1, 1), request(2, 1, 0, false), request(3, 1), request(4, 1), request(5, 1)};
  BenchmarkSource source = source_of(run);
  REQUIRE(source.peek_arrival_ns() == Tick{0});
  const RequestSpec first = source.pop();
  const RequestSpec second = source.pop();
  CHECK(second.prompt_tokens == 3);
  CHECK_FALSE(source.peek_arrival_ns().has_value());  // two in flight
  source.on_finished(first, 700);
  // Due since t = 0; the simulation sends it now (it never schedules in the past).
  REQUIRE(source.peek_arrival_ns() == Tick{0});
  const RequestSpec third = source.pop();
  CHECK(third.prompt_tokens == 4);
  CHECK_FALSE(source.peek_arrival_ns().has_value());
  source.on_finished(second, 900);
  source.on_finished(third, 950);
  CHECK(source.pop().prompt_tokens == 5);
  CHECK_FALSE(source.peek_arrival_ns().has_value());
  CHECK(source.exhausted());
}

TEST_CASE("benchmark source: stages without send times run one after another", "[workload][benchmark]") {
  BenchmarkRun run;
  run.path = "run.json";
  run.stages = {stage_of(std::nullopt), stage_of(std::nullopt)};
  run.requests = {request(1, 1, 0), request(2, 1, 0), request(3, 1, 1), request(4, 1, 1)};
  BenchmarkSource source = source_of(run);
  const RequestSpec a = source.pop(), b = source.pop();
  CHECK_FALSE(source.peek_arrival_ns().has_value());  // stage 1 waits for stage 0's end
  source.on_finished(b, 5'000);
  CHECK_FALSE(source.peek_arrival_ns().has_value());
  CHECK_FALSE(source.exhausted());
  source.on_finished(a, 9'000);
  REQUIRE(source.peek_arrival_ns() == Tick{9'000});
  CHECK(source.pop().prompt_tokens == 3);
  CHECK(source.pop().arrival_ns == 9'000);
  CHECK(source.exhausted());

  // `stage: 1` replays that stage alone, from t = 0.
  BenchmarkSource only = source_of(run, 1);
  const std::vector<RequestSpec> sent = drain(only);
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].prompt_tokens == 3);
  CHECK(sent[1].arrival_ns == 0);
}

TEST_CASE("benchmark source: what cannot be replayed is refused with the key", "[workload][benchmark]") {
  BenchmarkRun run;
  run.path = "run.json";
  run.stages = {stage_of(std::nullopt), stage_of(std::nullopt)};
  run.requests = {request(1, 1, 0), request(2, 1, 1, false)};
  CHECK(config_error_key(run, 2).rfind("workload.c.trace.stage: is 2, but the file has 2 stages (0 to 1)", 0) == 0);
  CHECK(config_error_key(run, -1).rfind("workload.c.trace.stage:", 0) == 0);
  CHECK(config_error_key(run, 1).rfind("workload.c.trace.path: no request of stage 1 of the file succeeded", 0) == 0);
  CHECK(config_error_key(run, std::nullopt, 0.0).rfind("workload.c.trace.speedup:", 0) == 0);
  run.requests[0].start_ns = 0;  // send times for one request of two
  CHECK(config_error_key(run, std::nullopt).find("send times for 1 of its 2 requests") != std::string::npos);
  // A stage without any request at all.
  run.requests = {request(1, 1, 0)};
  CHECK(config_error_key(run, 1) == "workload.c.trace.stage: stage 1 of the file has no requests");
}

TEST_CASE("benchmark source: infinite burstiness sends evenly spaced at the stage's rate", "[workload][benchmark]") {
  // inference-perf's and GuideLLM's constant load types read as burstiness +infinity.
  BenchmarkRun run;
  run.stages = {stage_of(4.0, std::numeric_limits<double>::infinity())};
  for (int i = 0; i < 8; ++i) run.requests.push_back(request(100, 10));
  BenchmarkSource source = source_of(run);
  const std::vector<RequestSpec> sent = drain(source);
  REQUIRE(sent.size() == 8);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    CHECK(sent[i].arrival_ns == static_cast<Tick>((i + 1) * 250'000'000));  // one 1/rate gap each, the first included
  }
}

}  // namespace benchmark_source_test
