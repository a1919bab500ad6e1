#include "sim/workload/distribution.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/errors.h"
#include "workload_test_util.h"

namespace distribution_test {

using namespace servesim;
using servesim::testing::mean_tolerance;
using servesim::testing::moments_of;
using servesim::testing::TempFile;
using servesim::testing::variance_tolerance;

namespace {

constexpr std::size_t kSamples = 400'000;

std::vector<double> draw(const Distribution& dist, std::uint64_t seed) {
  Rng rng(seed, "test/distribution");
  std::vector<double> xs(kSamples);
  for (double& x : xs) x = dist.sample(rng);
  return xs;
}

// Checks the sample mean and variance against the closed forms, within five standard errors
// computed from the closed-form fourth central moment.
void check_moments(const DistSpec& spec, double mean, double var, double mu4) {
  const auto dist = make_distribution(spec);
  REQUIRE(dist->mean() == Approx(mean).epsilon(1e-12));
  const auto m = moments_of(draw(*dist, 42));
  CHECK(m.mean == Approx(mean).margin(mean_tolerance(var, kSamples)));
  CHECK(m.variance == Approx(var).margin(variance_tolerance(var, mu4, kSamples)));
}

DistSpec spec_of(DistSpec::Kind kind, double a, double b = 0) {
  DistSpec spec;
  spec.kind = kind;
  spec.a = a;
  spec.b = b;
  return spec;
}

}  // namespace

TEST_CASE("distributions: fixed always returns its value", "[workload]") {
  const auto dist = make_distribution(spec_of(DistSpec::Kind::fixed, 400));
  Rng rng(1, "x");
  for (int i = 0; i < 100; ++i) REQUIRE(dist->sample(rng) == 400.0);
  CHECK(dist->mean() == 400.0);
}

TEST_CASE("distributions: uniform on a..b has mean (a+b)/2 and variance (b-a)^2/12", "[workload]") {
  const double w = 400 - 50;
  check_moments(spec_of(DistSpec::Kind::uniform, 50, 400), 225.0, w * w / 12, std::pow(w, 4) / 80);
  // Continuous: every sample lies inside [50, 400] and not all are integers.
  const auto xs = draw(*make_distribution(spec_of(DistSpec::Kind::uniform, 50, 400)), 3);
  int non_integer = 0;
  for (double x : xs) {
    REQUIRE(x >= 50.0);
    REQUIRE(x <= 400.0);
    non_integer += x != std::floor(x);
  }
  CHECK(non_integer > 0);
}

TEST_CASE("distributions: normal has the configured mean and variance", "[workload]") {
  check_moments(spec_of(DistSpec::Kind::normal, 1000, 250), 1000.0, 250.0 * 250, 3 * std::pow(250.0, 4));
}

TEST_CASE("distributions: lognormal {median - sigma} has mean median*exp(sigma^2/2)", "[workload]") {
  // Hand arithmetic: 2000 * exp(0.18) = 2000 * 1.1972173631 = 2394.4347.
  CHECK(make_distribution(spec_of(DistSpec::Kind::lognormal, 2000, 0.6))->mean() == Approx(2394.4347).epsilon(1e-7));
  // Raw moments of a lognormal: E[X^k] = exp(k*mu + k^2*sigma^2/2).
  const double median = 2000, sigma = 0.6, mu = std::log(median);
  auto raw = [&](int k) { return std::exp(k * mu + k * k * sigma * sigma / 2); };
  const double m1 = raw(1);
  const double var = raw(2) - m1 * m1;
  const double mu4 = raw(4) - 4 * raw(3) * m1 + 6 * raw(2) * m1 * m1 - 3 * std::pow(m1, 4);
  check_moments(spec_of(DistSpec::Kind::lognormal, median, sigma), m1, var, mu4);
  // The median is the median: half the samples fall below it.
  const auto xs = draw(*make_distribution(spec_of(DistSpec::Kind::lognormal, median, sigma)), 9);
  const double below = std::count_if(xs.begin(), xs.end(), [&](double x) { return x < median; });
  CHECK(below / xs.size() == Approx(0.5).margin(5 * std::sqrt(0.25 / xs.size())));
}

TEST_CASE("distributions: exponential {mean} has variance mean^2", "[workload]") {
  check_moments(spec_of(DistSpec::Kind::exponential, 5), 5.0, 25.0, 9 * std::pow(5.0, 4));
}

TEST_CASE("distributions: min and max clamp the samples but not the reported mean", "[workload]") {
  DistSpec spec = spec_of(DistSpec::Kind::normal, 0, 1);
  spec.min = -0.5;
  spec.max = 0.5;
  const auto dist = make_distribution(spec);
  CHECK(dist->mean() == 0.0);
  const auto xs = draw(*dist, 5);
  std::size_t at_min = 0;
  for (double x : xs) {
    REQUIRE(x >= -0.5);
    REQUIRE(x <= 0.5);
    at_min += x == -0.5;
  }
  // P(Z <= -0.5) = 0.308538 (standard normal table).
  CHECK(double(at_min) / xs.size() == Approx(0.308538).margin(5 * std::sqrt(0.31 * 0.69 / xs.size())));
}

TEST_CASE("distributions: the same seed and stream give the same samples - another stream differs", "[workload]") {
  const auto dist = make_distribution(spec_of(DistSpec::Kind::lognormal, 100, 1.0));
  Rng a(7, "workload/chat/input"), b(7, "workload/chat/input"), c(7, "workload/chat/output");
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x = dist->sample(a);
    REQUIRE(x == dist->sample(b));
    differ += x != dist->sample(c);
  }
  CHECK(differ == 1000);
}

TEST_CASE("distributions: bad parameters are ConfigErrors", "[workload]") {
  CHECK_THROWS_AS(make_distribution(spec_of(DistSpec::Kind::uniform, 5, 1)), ConfigError);
  CHECK_THROWS_AS(make_distribution(spec_of(DistSpec::Kind::normal, 5, -1)), ConfigError);
  CHECK_THROWS_AS(make_distribution(spec_of(DistSpec::Kind::lognormal, 0, 1)), ConfigError);
  CHECK_THROWS_AS(make_distribution(spec_of(DistSpec::Kind::exponential, 0)), ConfigError);
  DistSpec clamps = spec_of(DistSpec::Kind::fixed, 1);
  clamps.min = 10;
  clamps.max = 5;
  CHECK_THROWS_AS(make_distribution(clamps), ConfigError);
}

TEST_CASE("distributions: empirical resamples one CSV column - each row equally likely", "[workload]") {
  TempFile file("empirical.csv", "id,len\r\na,10\r\nb,20\r\nc,20\r\nd,50\r\n");
  DistSpec spec;
  spec.kind = DistSpec::Kind::empirical;
  spec.path = file.path();
  spec.column = "len";
  const auto dist = make_distribution(spec);
  CHECK(dist->mean() == 25.0);  // (10 + 20 + 20 + 50) / 4
  std::map<double, int> counts;
  Rng rng(11, "test/empirical");
  const int n = 100'000;
  for (int i = 0; i < n; ++i) counts[dist->sample(rng)]++;
  REQUIRE(counts.size() == 3);
  const double tol = 5 * std::sqrt(0.25 * 0.75 / n);
  CHECK(double(counts[10]) / n == Approx(0.25).margin(tol));
  CHECK(double(counts[20]) / n == Approx(0.50).margin(5 * std::sqrt(0.25 / n)));
  CHECK(double(counts[50]) / n == Approx(0.25).margin(tol));
}

TEST_CASE("distributions: empirical over the ShareGPT lengths matches the file's own mean", "[workload]") {
  const std::string path = servesim::testing::repo_file("data/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv");
  // Independent parse: the output length is the second field of each row.
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<double> values;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string first, second;
    std::getline(row, first, ',');
    std::getline(row, second, ',');
    values.push_back(std::stod(second));
  }
  REQUIRE(values.size() == 30731);
  const auto truth = moments_of(values);
  DistSpec spec;
  spec.kind = DistSpec::Kind::empirical;
  spec.path = path;
  spec.column = "num_decode_tokens";
  const auto dist = make_distribution(spec);
  CHECK(dist->mean() == Approx(truth.mean).epsilon(1e-12));
  CHECK(dist->mean() == Approx(439).margin(1));  // data/SOURCES.md: "output mean 439"
  const auto m = moments_of(draw(*dist, 21));
  CHECK(m.mean == Approx(truth.mean).margin(mean_tolerance(truth.variance, kSamples)));
}

TEST_CASE("distributions: an empirical column that is missing or not numeric names file - line and column",
          "[workload]") {
  TempFile file("empirical_bad.csv", "id,len\na,10\nb,oops\n");
  DistSpec spec;
  spec.kind = DistSpec::Kind::empirical;
  spec.path = file.path();
  spec.column = "len";
  try {
    make_distribution(spec);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains(file.path() + ":3") && Catch::Contains("len") && Catch::Contains("oops"));
  }
  spec.column = "tokens";
  try {
    make_distribution(spec);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains(file.path()) && Catch::Contains("tokens"));
  }
  spec.path = file.path() + ".does-not-exist";
  CHECK_THROWS_AS(make_distribution(spec), ConfigError);
}

}  // namespace distribution_test
