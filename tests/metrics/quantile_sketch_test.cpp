// The sketch against exact statistics of the same data: quantiles within the relative
// accuracy, exact count/min/max, mean and std to rounding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/metrics/quantile_sketch.h"

namespace quantile_sketch_test {

using servesim::QuantileSketch;

namespace {

// numpy.quantile's default ("linear"): interpolate at rank q * (n - 1) of the sorted data.
double exact_quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double rank = q * static_cast<double>(values.size() - 1);
  const auto low = static_cast<std::size_t>(std::floor(rank));
  const std::size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (rank - std::floor(rank));
}

double exact_mean(const std::vector<double>& values) {
  long double sum = 0;
  for (double v : values) sum += v;
  return static_cast<double>(sum / values.size());
}

double exact_std(const std::vector<double>& values) {
  const double mean = exact_mean(values);
  long double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(static_cast<double>(squares / values.size()));
}

const std::vector<double> kQuantiles{0.0,  0.001, 0.01, 0.1,  0.25,  0.5,
                                     0.75, 0.9,   0.95, 0.99, 0.999, 1.0};

void check_against_exact(const std::vector<double>& values, double alpha) {
  QuantileSketch sketch(alpha);
  for (double v : values) sketch.add(v);
  REQUIRE(sketch.count() == static_cast<std::int64_t>(values.size()));
  CHECK(sketch.min() == *std::min_element(values.begin(), values.end()));
  CHECK(sketch.max() == *std::max_element(values.begin(), values.end()));
  CHECK(sketch.mean() == Approx(exact_mean(values)).epsilon(1e-12));
  CHECK(sketch.stddev() == Approx(exact_std(values)).epsilon(1e-9));
  for (double q : kQuantiles) {
    const double exact = exact_quantile(values, q);
    const double estimate = sketch.quantile(q);
    INFO("q = " << q << ", exact " << exact << ", sketch " << estimate);
    // The bound is alpha; 1e-12 absorbs the rounding of log() at a bucket edge.
    CHECK(std::abs(estimate - exact) <= (alpha + 1e-12) * exact);
  }
}

}  // namespace

TEST_CASE("sketch quantiles of uniform data lie within the relative accuracy", "[metrics]") {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uniform(1e3, 1e9);  // 1 us .. 1 s in ns
  std::vector<double> values(20001);
  for (double& v : values) v = std::round(uniform(rng));
  check_against_exact(values, 0.005);
}

TEST_CASE("sketch quantiles of exponential data lie within the relative accuracy", "[metrics]") {
  std::mt19937_64 rng(2);
  std::exponential_distribution<double> exponential(1.0 / 5e7);  // mean 50 ms in ns
  std::vector<double> values(20000);
  for (double& v : values) v = exponential(rng);
  check_against_exact(values, 0.005);
}

TEST_CASE("sketch quantiles of lognormal data lie within the relative accuracy", "[metrics]") {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> lognormal(std::log(2000.0), 0.6);  // token counts
  std::vector<double> values(15000);
  for (double& v : values) v = std::round(lognormal(rng));
  check_against_exact(values, 0.005);
  check_against_exact(values, 0.001);  // a tighter sketch also holds its own bound
}

TEST_CASE("sketch of a point mass returns that value exactly at every quantile", "[metrics]") {
  QuantileSketch sketch;
  for (int i = 0; i < 1000; ++i) sketch.add(42.0);
  for (double q : kQuantiles) CHECK(sketch.quantile(q) == 42.0);
  CHECK(sketch.stddev() == 0.0);
  CHECK(sketch.mean() == 42.0);
  CHECK(sketch.bucket_count() == 1);
}

TEST_CASE("sketch keeps zeros in their own bucket and returns exactly 0 for them", "[metrics]") {
  // 30 zeros and 70 values 1..70: the 0.2-quantile (rank 19.8) is a zero.
  QuantileSketch sketch;
  std::vector<double> values;
  for (int i = 0; i < 30; ++i) values.push_back(0.0);
  for (int i = 1; i <= 70; ++i) values.push_back(i);
  for (double v : values) sketch.add(v);
  CHECK(sketch.quantile(0.2) == 0.0);
  CHECK(sketch.quantile(0.29) == 0.0);  // rank 28.71, both neighbours zero
  const double exact_median = exact_quantile(values, 0.5);  // rank 49.5: 20.5
  CHECK(exact_median == 20.5);
  CHECK(std::abs(sketch.quantile(0.5) - exact_median) <= 0.005 * exact_median);
}

TEST_CASE("sketch of nothing reports zeros", "[metrics]") {
  QuantileSketch sketch;
  CHECK(sketch.empty());
  CHECK(sketch.quantile(0.5) == 0.0);
  CHECK(sketch.mean() == 0.0);
  CHECK(sketch.stddev() == 0.0);
  CHECK(sketch.min() == 0.0);
  CHECK(sketch.max() == 0.0);
}

TEST_CASE("merging sketches equals adding every value to one", "[metrics]") {
  std::mt19937_64 rng(4);
  std::lognormal_distribution<double> lognormal(std::log(3e7), 1.2);
  QuantileSketch whole;
  QuantileSketch parts[3];
  for (int i = 0; i < 9000; ++i) {
    const double v = (i % 97 == 0) ? 0.0 : std::round(lognormal(rng));
    whole.add(v);
    parts[i % 3].add(v);
  }
  QuantileSketch merged;
  for (const auto& part : parts) merged.merge(part);
  CHECK(merged.count() == whole.count());
  CHECK(merged.min() == whole.min());
  CHECK(merged.max() == whole.max());
  CHECK(merged.sum() == Approx(whole.sum()).epsilon(1e-15));
  CHECK(merged.stddev() == Approx(whole.stddev()).epsilon(1e-12));
  CHECK(merged.bucket_count() == whole.bucket_count());
  for (double q : kQuantiles) CHECK(merged.quantile(q) == whole.quantile(q));
}

TEST_CASE("merging sketches that end in runs of equal values loses nothing", "[metrics]") {
  // Runs of equal values are held back before folding into the moments; a merge must
  // fold both sides' runs. Part a: 10 x 5 then 3 x 7; part b: 4 x 1 then 6 x 9.
  QuantileSketch a, b, whole;
  a.add(5.0, 10);
  a.add(7.0, 3);
  b.add(1.0, 4);
  b.add(9.0, 6);
  for (auto [v, n] : {std::pair{5.0, 10}, {7.0, 3}, {1.0, 4}, {9.0, 6}}) whole.add(v, n);
  a.merge(b);
  // Exact: n 23, sum 50 + 21 + 4 + 54 = 129.
  const double mean = 129.0 / 23.0;
  const double m2 = 10 * (5 - mean) * (5 - mean) + 3 * (7 - mean) * (7 - mean) +
                    4 * (1 - mean) * (1 - mean) + 6 * (9 - mean) * (9 - mean);
  CHECK(a.count() == 23);
  CHECK(a.sum() == 129.0);
  CHECK(a.mean() == Approx(mean).epsilon(1e-15));
  CHECK(a.stddev() == Approx(std::sqrt(m2 / 23.0)).epsilon(1e-13));
  CHECK(whole.stddev() == Approx(std::sqrt(m2 / 23.0)).epsilon(1e-13));
  CHECK(a.min() == 1.0);
  CHECK(a.max() == 9.0);
  for (double q : kQuantiles) CHECK(a.quantile(q) == whole.quantile(q));
  // Sorted: 4 x 1, 10 x 5, 3 x 7, 6 x 9; the median (rank 11) is a 5.
  CHECK(a.quantile(0.5) == Approx(5.0).epsilon(0.005));
}

TEST_CASE("adding a value n times at once equals n single adds", "[metrics]") {
  QuantileSketch batched;
  QuantileSketch single;
  const std::vector<std::pair<double, int>> steps{{12e6, 64}, {11e6, 3}, {0.0, 5}, {250e6, 1},
                                                  {12e6, 200}};
  for (const auto& [value, n] : steps) {
    batched.add(value, n);
    for (int i = 0; i < n; ++i) single.add(value);
  }
  CHECK(batched.count() == 273);
  CHECK(batched.count() == single.count());
  CHECK(batched.sum() == single.sum());
  CHECK(batched.min() == 0.0);
  CHECK(batched.max() == 250e6);
  CHECK(batched.stddev() == Approx(single.stddev()).epsilon(1e-12));
  for (double q : kQuantiles) CHECK(batched.quantile(q) == single.quantile(q));
  // Mean by hand: (12e6 * 264 + 11e6 * 3 + 250e6) / 273.
  CHECK(batched.mean() == Approx((12e6 * 264 + 11e6 * 3 + 250e6) / 273.0).epsilon(1e-15));
}

TEST_CASE("sketch memory is bounded by the value range - not the number of values", "[metrics]") {
  // Values spread over 1 ns .. 1000 s: ceil(ln(1e12) / ln(gamma)) + 1 buckets at most.
  QuantileSketch sketch;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> exponent(0.0, 12.0);
  for (int i = 0; i < 200000; ++i) sketch.add(std::round(std::pow(10.0, exponent(rng))));
  const double gamma = 1.005 / 0.995;
  const auto bound = static_cast<std::size_t>(std::ceil(std::log(1e12) / std::log(gamma))) + 1;
  CHECK(sketch.bucket_count() <= bound);
  CHECK(bound < 2800);  // 8 bytes each: about 22 KB for a whole nanosecond-to-hour range
}

// The recorder gives every inter-token gap to its class's and its pool's sketch through
// add_to_both, which computes the bucket once: each must equal a sketch that got plain adds.
TEST_CASE("add_to_both equals adding to each sketch on its own", "[metrics]") {
  QuantileSketch a, b, plain_a, plain_b;
  std::mt19937_64 gen(11);
  std::lognormal_distribution<double> gap(16.0, 0.7);
  for (int i = 0; i < 20000; ++i) {
    const double v = i % 7 == 0 ? 0.0 : std::round(gap(gen));
    const std::int64_t n = 1 + static_cast<std::int64_t>(gen() % 9);
    QuantileSketch::add_to_both(a, b, v, n);
    plain_a.add(v, n);
    plain_b.add(v, n);
    if (i % 5 == 0) {  // values only one of them sees: its last value differs from the other's
      const double w = std::round(gap(gen));
      a.add(w);
      plain_a.add(w);
    }
  }
  for (const auto* pair : {&a, &b}) {
    const QuantileSketch& got = *pair;
    const QuantileSketch& want = pair == &a ? plain_a : plain_b;
    CHECK(got.count() == want.count());
    CHECK(got.sum() == want.sum());
    CHECK(got.stddev() == want.stddev());
    CHECK(got.bucket_count() == want.bucket_count());
    for (double q : kQuantiles) CHECK(got.quantile(q) == want.quantile(q));
  }
}

}  // namespace quantile_sketch_test

namespace servesim {
struct QuantileSketchProbe {
  static int reused(QuantileSketch& s, double v) {
    static QuantileSketch::IndexHint hint;
    return s.index_with_hint(v, &hint);
  }
  static int computed(const QuantileSketch& s, double v) { return s.bucket_index(v); }
  static int tabled(const QuantileSketch& s, double v) { return s.table_bucket_index(v); }
};
}  // namespace servesim

namespace quantile_sketch_test {

// The bucket of a new value is reused from the previous one when the value lies well inside
// that bucket: it must always be the bucket the log gives, at bucket edges above all.
TEST_CASE("a reused bucket index is the computed one - at bucket edges too", "[metrics]") {
  using servesim::QuantileSketchProbe;
  QuantileSketch sketch;
  const double gamma = 1.005 / 0.995;
  std::mt19937_64 rng(12);
  std::int64_t checked = 0;
  for (int i = 1500; i < 2600; i += 7) {  // ~0.3 ms .. 0.5 s in ns
    const double edge = std::pow(gamma, i);
    // Walk across the edge in steps of a few ulps, then jump around it: each value
    // follows a neighbour, so the reused path is taken wherever it may be.
    for (int k = -40; k <= 40; ++k) {
      const double v = edge * (1 + k * 1e-15);
      REQUIRE(QuantileSketchProbe::reused(sketch, v) == QuantileSketchProbe::computed(sketch, v));
      const double w = edge * (1 + (static_cast<double>(rng() % 2001) - 1000) * 1e-11);
      REQUIRE(QuantileSketchProbe::reused(sketch, w) == QuantileSketchProbe::computed(sketch, w));
      checked += 2;
    }
  }
  // Integer gaps growing by a few ns, as a replica's steps do.
  for (double v = 8.0e6; v < 9.0e6; v += 3) {
    REQUIRE(QuantileSketchProbe::reused(sketch, v) == QuantileSketchProbe::computed(sketch, v));
    ++checked;
  }
  CHECK(checked > 300000);
}

// The bucket found in the table of bounds must be the log's: at and around bucket edges
// over the whole range the table covers (2^-20 .. 2^64), at every part boundary of an
// octave, and for integer gaps as a replica's steps give them.
TEST_CASE("a tabled bucket index is the computed one", "[metrics]") {
  using servesim::QuantileSketchProbe;
  const QuantileSketch sketch;
  const double gamma = 1.005 / 0.995;
  std::mt19937_64 rng(5);
  std::int64_t checked = 0;
  const auto check = [&](double v) {
    REQUIRE(QuantileSketchProbe::tabled(sketch, v) == QuantileSketchProbe::computed(sketch, v));
    ++checked;
  };
  for (int i = -1380; i < 4440; ++i) {  // every edge gamma^i from 1e-6 to beyond 2^64
    const double edge = std::pow(gamma, i);
    for (int k = -20; k <= 20; ++k) check(edge * (1 + k * 1e-15));
    for (int k = 0; k < 4; ++k) check(edge * (1 + (static_cast<double>(rng() % 2001) - 1000) * 1e-6));
  }
  for (int e = -19; e < 64; ++e)
    for (int part = 0; part < 64; ++part) {
      const double v = std::ldexp(1.0 + part / 64.0, e);
      check(v);
      check(std::nextafter(v, 0.0));
      check(std::nextafter(v, 1e300));
    }
  for (double v = 1; v < 2.0e5; v += 1) check(v);
  for (double v = 8.0e6; v < 9.0e6; v += 7) check(v);
  CHECK(checked > 600000);
}

// A replica hands its steps' gaps to its class's and pool's sketches at once, with the
// number of its decodes that had each as runs of counts: the result must be the sketches
// that got every gap, its count times, one add after the other.
TEST_CASE("adding a batch of values to both sketches equals adding them one by one", "[metrics]") {
  std::mt19937_64 gen(21);
  std::lognormal_distribution<double> gap(16.0, 0.4);
  QuantileSketch a, b, one_a, one_b;
  QuantileSketch::IndexHint hint, one_hint;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::int64_t> values;
    const std::size_t n = 1 + gen() % 40;
    for (std::size_t i = 0; i < n; ++i) {
      // Slowly growing gaps (a stretch of decode steps), a zero now and then, a huge one.
      std::int64_t v = static_cast<std::int64_t>(gap(gen)) + static_cast<std::int64_t>(i) * 1000;
      if (gen() % 97 == 0) v = 0;
      if (gen() % 211 == 0) v = std::int64_t{1} << 50;
      values.push_back(v);
    }
    // The first run may start late (the class had no decodes before), two may start at
    // the same value (the count changed twice between steps), counts may be 0 (none
    // left) or beyond 2^20 (past the exact sums' fast path).
    std::vector<QuantileSketch::CountRun> runs;
    for (std::size_t from = gen() % 3 == 0 ? gen() % 4 : 0; from <= n; from += gen() % 9) {
      std::int64_t count = 1 + static_cast<std::int64_t>(gen() % 200);
      if (gen() % 13 == 0) count = 0;
      if (gen() % 61 == 0) count = (std::int64_t{1} << 20) + static_cast<std::int64_t>(gen() % 9);
      runs.push_back(QuantileSketch::CountRun{from, count});
      if (gen() % 11 == 0) break;
    }
    QuantileSketch::add_all_to_both(a, b, values.data(), values.size(), runs.data(), runs.size(), &hint);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const std::size_t to = r + 1 < runs.size() ? runs[r + 1].from : n;
      for (std::size_t i = runs[r].from; i < to; ++i)
        QuantileSketch::add_to_both(one_a, one_b, static_cast<double>(values[i]), runs[r].count, &one_hint);
    }
    if (round % 7 == 0) {  // single adds in between, to one sketch only
      const double w = std::round(gap(gen));
      a.add(w, 3);
      one_a.add(w, 3);
    }
  }
  CHECK(a.count() > 100000);
  for (const auto& [got, want] : {std::pair{&a, &one_a}, std::pair{&b, &one_b}}) {
    CHECK(got->count() == want->count());
    CHECK(got->sum() == want->sum());
    CHECK(got->mean() == want->mean());
    CHECK(got->stddev() == want->stddev());
    CHECK(got->min() == want->min());
    CHECK(got->max() == want->max());
    CHECK(got->bucket_count() == want->bucket_count());
    for (double q : kQuantiles) CHECK(got->quantile(q) == want->quantile(q));
  }
}

}  // namespace quantile_sketch_test
