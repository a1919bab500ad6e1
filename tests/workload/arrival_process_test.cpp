#include "sim/workload/arrival_process.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "sim/core/errors.h"
#include "workload_test_util.h"

namespace arrival_process_test {

using namespace servesim;
using servesim::testing::moments_of;

namespace {

constexpr std::size_t kGaps = 400'000;

std::vector<double> gaps_of(ArrivalSpec spec, std::uint64_t seed) {
  const auto process = make_arrival_process(spec, "test", Rng(seed, "workload/test/arrival"));
  std::vector<double> gaps(kGaps);
  for (double& gap : gaps) gap = process->next_gap_s();
  return gaps;
}

ArrivalSpec arrival(ArrivalSpec::Process process, double rate, double cv = 1.0) {
  ArrivalSpec spec;
  spec.process = process;
  spec.rate_per_s = rate;
  spec.cv = cv;
  return spec;
}

}  // namespace

TEST_CASE("arrivals: poisson gaps have mean 1/rate and coefficient of variation 1", "[workload]") {
  const auto m = moments_of(gaps_of(arrival(ArrivalSpec::Process::poisson, 5.0), 1));
  // Exponential gaps: sd = mean = 0.2 s; the sample mean's standard error is 0.2/sqrt(n).
  CHECK(m.mean == Approx(0.2).margin(5 * 0.2 / std::sqrt(kGaps)));
  // CV's standard error for an exponential is about sqrt(8/(4n)) = 0.0022 at n = 400k.
  CHECK(std::sqrt(m.variance) / m.mean == Approx(1.0).margin(0.012));
}

TEST_CASE("arrivals: gamma gaps have mean 1/rate and the configured coefficient of variation", "[workload]") {
  for (double cv : {0.5, 2.0}) {
    CAPTURE(cv);
    const auto m = moments_of(gaps_of(arrival(ArrivalSpec::Process::gamma, 4.0, cv), 2));
    const double sd = 0.25 * cv;
    CHECK(m.mean == Approx(0.25).margin(5 * sd / std::sqrt(kGaps)));
    // Gamma shape k = 1/cv^2 has excess kurtosis 6/k = 6 cv^2; the CV estimate's standard
    // error is about cv * sqrt((2 + 6 cv^2) / (4 n)).
    const double cv_se = cv * std::sqrt((2 + 6 * cv * cv) / (4.0 * kGaps));
    CHECK(std::sqrt(m.variance) / m.mean == Approx(cv).margin(5 * cv_se));
  }
}

TEST_CASE("arrivals: a gamma process with cv 1 is a different draw but the same law as poisson", "[workload]") {
  const auto m = moments_of(gaps_of(arrival(ArrivalSpec::Process::gamma, 10.0, 1.0), 3));
  CHECK(m.mean == Approx(0.1).margin(5 * 0.1 / std::sqrt(kGaps)));
  CHECK(std::sqrt(m.variance) / m.mean == Approx(1.0).margin(0.012));
}

TEST_CASE("arrivals: constant gaps are exactly 1/rate", "[workload]") {
  const auto process = make_arrival_process(arrival(ArrivalSpec::Process::constant, 4.0), "c", Rng(1, "x"));
  for (int i = 0; i < 1000; ++i) REQUIRE(process->next_gap_s() == 0.25);
  CHECK(process->mean_gap_s() == 0.25);
}

TEST_CASE("arrivals: the same seed gives the same gaps and another seed different ones", "[workload]") {
  const auto spec = arrival(ArrivalSpec::Process::poisson, 3.0);
  const auto a = make_arrival_process(spec, "t", Rng(5, "workload/t/arrival"));
  const auto b = make_arrival_process(spec, "t", Rng(5, "workload/t/arrival"));
  const auto c = make_arrival_process(spec, "t", Rng(6, "workload/t/arrival"));
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const double gap = a->next_gap_s();
    REQUIRE(gap == b->next_gap_s());
    differ += gap != c->next_gap_s();
  }
  CHECK(differ == 1000);
}

TEST_CASE("arrivals: a rate or cv that is not positive is a ConfigError naming the key", "[workload]") {
  try {
    make_arrival_process(arrival(ArrivalSpec::Process::poisson, 0.0), "chat", Rng(1, "x"));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "workload.chat.arrival.rate");
  }
  try {
    make_arrival_process(arrival(ArrivalSpec::Process::gamma, 1.0, 0.0), "chat", Rng(1, "x"));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "workload.chat.arrival.cv");
  }
}

}  // namespace arrival_process_test
