#include "sim/workload/synthetic_source.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "sim/core/errors.h"
#include "sim/workload/sampled_lengths.h"
#include "workload_test_util.h"

namespace synthetic_source_test {

using namespace servesim;

namespace {

using servesim::testing::dist;

ClassSpec open_class(ArrivalSpec::Process process, double rate, DistSpec input, DistSpec output) {
  ClassSpec spec;
  spec.name = "chat";
  ArrivalSpec arrival;
  arrival.process = process;
  arrival.rate_per_s = rate;
  spec.arrival = arrival;
  spec.input = input;
  spec.output = output;
  return spec;
}

std::vector<RequestSpec> take(RequestSource& source, int n) {
  std::vector<RequestSpec> requests;
  for (int i = 0; i < n; ++i) {
    REQUIRE(source.peek_arrival_ns().has_value());
    requests.push_back(source.pop());
  }
  return requests;
}

}  // namespace

TEST_CASE("synthetic source: constant arrivals land exactly on multiples of 1/rate", "[workload]") {
  const auto source = make_source(open_class(ArrivalSpec::Process::constant, 4.0, dist(DistSpec::Kind::fixed, 100),
                                             dist(DistSpec::Kind::fixed, 10)),
                                  3, 1);
  const auto requests = take(*source, 1000);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    REQUIRE(requests[i].arrival_ns == static_cast<Tick>(i + 1) * 250'000'000);
    REQUIRE(requests[i].class_index == 3);
    REQUIRE(requests[i].id == 0);
    REQUIRE(requests[i].prompt_tokens == 100);
    REQUIRE(requests[i].output_tokens == 10);
  }
  CHECK_FALSE(source->exhausted());
}

TEST_CASE("synthetic source: peek is stable until pop and arrivals never go back in time", "[workload]") {
  const auto source = make_source(open_class(ArrivalSpec::Process::poisson, 50.0, dist(DistSpec::Kind::fixed, 100),
                                             dist(DistSpec::Kind::fixed, 10)),
                                  0, 9);
  Tick previous = 0;
  for (int i = 0; i < 10'000; ++i) {
    const auto first = source->peek_arrival_ns();
    REQUIRE(first == source->peek_arrival_ns());
    const RequestSpec request = source->pop();
    REQUIRE(request.arrival_ns == *first);
    REQUIRE(request.arrival_ns >= previous);
    previous = request.arrival_ns;
  }
  // 10,000 poisson arrivals at 50/s take about 200 s (sd 2 s).
  CHECK(seconds_from_ticks(previous) == Approx(200.0).margin(10.0));
}

TEST_CASE("synthetic source: token counts are rounded to the nearest integer", "[workload]") {
  CHECK(round_token_count(2.5, 0) == 3);
  CHECK(round_token_count(2.49, 0) == 2);
  CHECK(round_token_count(-3.0, 0) == 0);
  CHECK(round_token_count(1e300, 0) == kMaxSampledTokens);
  // uniform [1, 3] rounded: 1 on [1, 1.5), 2 on [1.5, 2.5), 3 on [2.5, 3]: 1/4, 1/2, 1/4.
  const auto source = make_source(open_class(ArrivalSpec::Process::poisson, 1.0, dist(DistSpec::Kind::uniform, 1, 3),
                                             dist(DistSpec::Kind::fixed, 1)),
                                  0, 4);
  const int n = 200'000;
  int counts[4] = {0, 0, 0, 0};
  for (const auto& r : take(*source, n)) {
    REQUIRE(r.prompt_tokens >= 1);
    REQUIRE(r.prompt_tokens <= 3);
    counts[r.prompt_tokens]++;
  }
  const double tol = 5 * std::sqrt(0.25 / n);
  CHECK(double(counts[1]) / n == Approx(0.25).margin(tol));
  CHECK(double(counts[2]) / n == Approx(0.50).margin(tol));
  CHECK(double(counts[3]) / n == Approx(0.25).margin(tol));
  CHECK(source->raised_input_samples() == 0);
}

TEST_CASE("synthetic source: prompts below one token are raised to one and counted - outputs floor at zero",
          "[workload]") {
  // normal(1, 1) rounds below 1 when the sample is < 0.5: P(Z < -0.5) = 0.308538.
  const auto source = make_source(open_class(ArrivalSpec::Process::poisson, 1.0, dist(DistSpec::Kind::normal, 1, 1),
                                             dist(DistSpec::Kind::normal, 0, 1)),
                                  0, 5);
  const int n = 200'000;
  int ones = 0, zero_outputs = 0;
  for (const auto& r : take(*source, n)) {
    REQUIRE(r.prompt_tokens >= 1);
    REQUIRE(r.output_tokens >= 0);
    ones += r.prompt_tokens == 1;
    zero_outputs += r.output_tokens == 0;
  }
  const double raised_share = double(source->raised_input_samples()) / n;
  CHECK(raised_share == Approx(0.308538).margin(5 * std::sqrt(0.31 * 0.69 / n)));
  // Prompt 1 = raised samples plus samples in [0.5, 1.5): P(-0.5 <= Z < 0.5) = 0.382925.
  CHECK(double(ones) / n == Approx(0.308538 + 0.382925).margin(5 * std::sqrt(0.25 / n)));
  // Output 0 = samples below 0.5: P(Z < 0.5) = 0.691462.
  CHECK(double(zero_outputs) / n == Approx(0.691462).margin(5 * std::sqrt(0.25 / n)));
}

TEST_CASE("synthetic source: mean prompt length matches the lognormal's closed-form mean", "[workload]") {
  const auto source = make_source(open_class(ArrivalSpec::Process::poisson, 4.0,
                                             dist(DistSpec::Kind::lognormal, 2000, 0.6), dist(DistSpec::Kind::fixed, 400)),
                                  0, 6);
  const int n = 200'000;
  long double sum = 0;
  for (const auto& r : take(*source, n)) sum += r.prompt_tokens;
  // Mean 2394.43 (2000 e^0.18); sd = mean * sqrt(e^0.36 - 1) = 1577.4. Rounding adds < 0.5.
  CHECK(double(sum / n) == Approx(2394.43).margin(5 * 1577.4 / std::sqrt(n) + 0.5));
}

TEST_CASE("synthetic source: same seed - same requests - a new seed changes them", "[workload]") {
  const ClassSpec spec = open_class(ArrivalSpec::Process::gamma, 4.0, dist(DistSpec::Kind::lognormal, 500, 0.8),
                                    dist(DistSpec::Kind::exponential, 100));
  const auto a = take(*make_source(spec, 0, 42), 2000);
  const auto b = take(*make_source(spec, 0, 42), 2000);
  const auto c = take(*make_source(spec, 0, 43), 2000);
  int same_arrival = 0;
  for (int i = 0; i < 2000; ++i) {
    REQUIRE(a[i].arrival_ns == b[i].arrival_ns);
    REQUIRE(a[i].prompt_tokens == b[i].prompt_tokens);
    REQUIRE(a[i].output_tokens == b[i].output_tokens);
    same_arrival += a[i].arrival_ns == c[i].arrival_ns;
  }
  CHECK(same_arrival == 0);
}

TEST_CASE("synthetic source: changing the output distribution leaves arrivals and prompts unchanged", "[workload]") {
  ClassSpec first = open_class(ArrivalSpec::Process::poisson, 4.0, dist(DistSpec::Kind::lognormal, 500, 0.8),
                               dist(DistSpec::Kind::exponential, 100));
  ClassSpec second = first;
  second.output = dist(DistSpec::Kind::uniform, 10, 1000);
  const auto a = take(*make_source(first, 0, 42), 2000);
  const auto b = take(*make_source(second, 0, 42), 2000);
  int same_output = 0;
  for (int i = 0; i < 2000; ++i) {
    REQUIRE(a[i].arrival_ns == b[i].arrival_ns);
    REQUIRE(a[i].prompt_tokens == b[i].prompt_tokens);
    same_output += a[i].output_tokens == b[i].output_tokens;
  }
  CHECK(same_output < 100);
  // And a class of another name draws from other streams.
  ClassSpec renamed = first;
  renamed.name = "other";
  const auto d = take(*make_source(renamed, 0, 42), 2000);
  int same = 0;
  for (int i = 0; i < 2000; ++i) same += a[i].arrival_ns == d[i].arrival_ns;
  CHECK(same == 0);
}

TEST_CASE("synthetic source: a class without arrival - input or output is a ConfigError", "[workload]") {
  ClassSpec spec = open_class(ArrivalSpec::Process::poisson, 1.0, dist(DistSpec::Kind::fixed, 1),
                              dist(DistSpec::Kind::fixed, 1));
  spec.input.reset();
  CHECK_THROWS_AS(make_source(spec, 0, 1), ConfigError);
  spec.input = dist(DistSpec::Kind::fixed, 1);
  spec.arrival.reset();
  CHECK_THROWS_AS(make_source(spec, 0, 1), ConfigError);
}

}  // namespace synthetic_source_test
