// MeanLengthWalk gives a decode run's mean lengths without dividing at most steps: each
// must be the division's own double, double(sum) / double(seqs) + 1.0, bit for bit --
// across powers of two of the quotient (where it divides again), for batches of one
// sequence and of thousands, for remainders of zero and of seqs - 1, and at random.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>

#include "sim/hardware/mean_length_walk.h"

namespace mean_length_walk_test {

using namespace servesim;

namespace {

std::uint64_t bits_of(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Walks `steps` steps and counts the ones whose length differs from the division's.
int mismatches(std::int64_t context_sum, std::int64_t seqs, std::int64_t steps) {
  MeanLengthWalk walk(context_sum, seqs, steps);
  int wrong = 0;
  for (std::int64_t k = 0; k < steps; ++k) {
    const std::int64_t sum = context_sum + k * seqs;
    const double expected = static_cast<double>(sum) / static_cast<double>(seqs) + 1.0;
    if (bits_of(walk.next()) != bits_of(expected)) ++wrong;
  }
  return wrong;
}

// The same walk taken by stretches, as KernelCostModel::decode_run_memory_costs does:
// double(whole() + j) + fraction() across each stretch without a division, next() between.
int stretch_mismatches(std::int64_t context_sum, std::int64_t seqs, std::int64_t steps) {
  MeanLengthWalk walk(context_sum, seqs, steps);
  int wrong = 0;
  std::int64_t k = 0;
  const auto check = [&](double got) {
    const std::int64_t sum = context_sum + k * seqs;
    const double expected = static_cast<double>(sum) / static_cast<double>(seqs) + 1.0;
    if (bits_of(got) != bits_of(expected)) ++wrong;
    ++k;
  };
  while (k < steps) {
    const std::int64_t stretch = walk.steps_without_division(steps - k);
    if (stretch == 0) {
      check(walk.next());
      continue;
    }
    const std::int64_t whole = walk.whole();
    const double fraction = walk.fraction();
    walk.skip(stretch);
    for (std::int64_t j = 0; j < stretch; ++j) check(static_cast<double>(whole + j) + fraction);
  }
  return wrong;
}

}  // namespace

TEST_CASE("mean length walk: every step is the division's double", "[hardware]") {
  // Runs that start just below a power of two of the quotient and cross it, for every
  // remainder class that matters (0, 1, seqs / 2, seqs - 1).
  for (const std::int64_t seqs : {1, 2, 3, 7, 8, 37, 100, 255, 256, 1000, 4097}) {
    for (const std::int64_t power : {1, 2, 5, 10, 11, 20, 30, 40, 50}) {
      const std::int64_t q = (std::int64_t{1} << power) - 3;
      for (const std::int64_t r : {std::int64_t{0}, std::int64_t{1}, seqs / 2, seqs - 1}) {
        INFO(seqs << " sequences, quotient " << q << ", remainder " << r);
        CHECK(mismatches(q * seqs + r, seqs, 70) == 0);
        CHECK(stretch_mismatches(q * seqs + r, seqs, 70) == 0);
      }
    }
  }
}

TEST_CASE("mean length walk: random runs match the division", "[hardware]") {
  std::mt19937_64 rng(20261207);
  std::uniform_int_distribution<std::int64_t> seqs_of(1, 3000);
  std::uniform_int_distribution<std::int64_t> mean_of(0, 200000);
  int wrong = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t seqs = seqs_of(rng);
    const std::int64_t context = seqs * mean_of(rng) + std::uniform_int_distribution<std::int64_t>(0, seqs - 1)(rng);
    wrong += mismatches(context, seqs, 40);
    wrong += stretch_mismatches(context, seqs, 40);
  }
  CHECK(wrong == 0);
}

TEST_CASE("mean length walk: sums near 2^52 and 2^53 take the division", "[hardware]") {
  // Past 2^52 the walk divides at every step; the division's own rounding of double(sum)
  // is then what it returns.
  const std::int64_t big = (std::int64_t{1} << 52) - 5;
  CHECK(mismatches(big, 1, 20) == 0);
  CHECK(mismatches(big, 3, 20) == 0);
  CHECK(stretch_mismatches(big, 3, 20) == 0);
  CHECK(stretch_mismatches((std::int64_t{1} << 53) + 7, 5, 20) == 0);
  CHECK(mismatches((std::int64_t{1} << 53) + 7, 5, 20) == 0);
  CHECK(mismatches(0, 1, 10) == 0);  // a quotient of 0 at the start
  CHECK(mismatches(5, 9, 10) == 0);
}

}  // namespace mean_length_walk_test
