// ExactMoments against hand-computed figures and against itself in another order: the
// variance of integer values is the same bit for bit whatever order they come in, and
// right even where a naive double formula cancels catastrophically.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/metrics/exact_moments.h"
#include "sim/metrics/quantile_sketch.h"

namespace exact_moments_test {

using namespace servesim;

TEST_CASE("exact moments of a small set match the figures worked by hand", "[metrics]") {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population variance 4.
  ExactMoments m;
  for (std::uint64_t v : {2, 4, 4, 4, 5, 5, 7, 9}) m.add(v, 1);
  CHECK(m.count() == 8);
  CHECK(m.sum() == 40.0L);
  CHECK(m.variance() == 4.0L);
  ExactMoments batched;  // the same as (value, count) pairs
  batched.add(2, 1);
  batched.add(4, 3);
  batched.add(5, 2);
  batched.add(7, 1);
  batched.add(9, 1);
  CHECK(batched.variance() == 4.0L);
  CHECK(ExactMoments{}.variance() == 0.0L);
}

TEST_CASE("exact moments keep a tiny spread around a huge mean", "[metrics]") {
  // 10^12 ns + {0, 1, 2}: variance 2/3. In doubles, sum(v^2)/n - mean^2 is (10^24 +...) -
  // 10^24: every digit of the answer lies below the rounding of either term.
  ExactMoments m;
  const std::uint64_t base = 1000000000000ULL;
  for (std::uint64_t d : {0, 1, 2}) m.add(base + d, 1000000);
  CHECK(static_cast<double>(m.variance()) == Approx(2.0 / 3.0).epsilon(1e-15));
  // The largest values: 2^64 - 1 and 0, once each: variance (2^64 - 1)^2 / 4.
  ExactMoments edge;
  edge.add(~std::uint64_t{0}, 1);
  edge.add(0, 1);
  const long double half = 18446744073709551615.0L / 2;
  CHECK(edge.variance() == Approx(static_cast<double>(half * half)).epsilon(1e-15));
}

TEST_CASE("exact moments and the sketch's standard deviation do not depend on the order of integer values",
          "[metrics]") {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> gap(16.0, 0.8);  // inter-token gaps in ns
  std::vector<std::pair<std::uint64_t, std::uint64_t>> values;
  for (int i = 0; i < 5000; ++i) values.emplace_back(static_cast<std::uint64_t>(gap(rng)), 1 + rng() % 300);
  ExactMoments forward, backward, split_a, split_b;
  QuantileSketch sketch_forward, sketch_shuffled;
  for (const auto& [v, n] : values) {
    forward.add(v, n);
    sketch_forward.add(static_cast<double>(v), static_cast<std::int64_t>(n));
  }
  auto shuffled = values;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (const auto& [v, n] : shuffled) sketch_shuffled.add(static_cast<double>(v), static_cast<std::int64_t>(n));
  for (auto it = values.rbegin(); it != values.rend(); ++it) backward.add(it->first, it->second);
  for (std::size_t i = 0; i < values.size(); ++i) (i % 2 ? split_a : split_b).add(values[i].first, values[i].second);
  split_a.add(split_b);
  CHECK(forward.variance() == backward.variance());
  CHECK(forward.variance() == split_a.variance());
  CHECK(forward.sum() == backward.sum());
  CHECK(sketch_forward.stddev() == sketch_shuffled.stddev());
  CHECK(sketch_forward.mean() == sketch_shuffled.mean());
  // And it is the standard deviation: against a two-pass long double computation.
  long double n = 0, s = 0;
  for (const auto& [v, c] : values) {
    n += c;
    s += static_cast<long double>(v) * c;
  }
  const long double mean = s / n;
  long double m2 = 0;
  for (const auto& [v, c] : values) m2 += (v - mean) * (v - mean) * c;
  CHECK(sketch_forward.stddev() == Approx(static_cast<double>(std::sqrt(m2 / n))).epsilon(1e-14));
}

TEST_CASE("exact moments summed in bulk equal the values added one by one", "[metrics]") {
  std::mt19937_64 rng(3);
  ExactMoments once, bulk;
  __extension__ using U128 = unsigned __int128;
  U128 sum = 0, squares = 0;
  std::uint64_t n = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t v = rng() % (std::uint64_t{1} << 40);
    once.add(v, 1);
    sum += v;
    squares += static_cast<U128>(v) * v;
    ++n;
  }
  bulk.add_sums(n, sum, squares);
  CHECK(bulk.count() == once.count());
  CHECK(bulk.variance() == once.variance());
  CHECK(bulk.sum() == once.sum());
}

}  // namespace exact_moments_test
