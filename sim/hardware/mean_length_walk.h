#pragma once
// The mean sequence length a decode run's steps read off the decode-attention curve,
// double(sum) / double(seqs) + 1.0 for sum = context_sum, context_sum + seqs, ..., bit for
// bit, with a division only where the quotient enters a new power of two.
//
// Why that is exact: write sum = q * seqs + r (0 <= r < seqs). Along the run q rises by one
// a step and r stays. While q lies in [2^E, 2^(E+1) - 1] (E <= 51), sum / seqs = q + r/seqs
// lies in the binade [2^E, 2^(E+1)), where doubles are the multiples of u = 2^(E-52), and
// q / u is an even integer; rounding to nearest-even of q + f on that grid is then q plus
// the rounding of f alone, so x = fl(sum / seqs) = q + g with g (in [0, 1]) the same for every
// such q. One division gives g = x - q (exact: q <= x <= q + 1 <= 2q). Then fl(x + 1.0) is
// the rounding of the real q + 1 + g, which is what double(q + 1) + g rounds (q + 1 is a
// double). The other steps (a new binade, sums from 2^52 on) take the division itself.
// tests/hardware/mean_length_walk_test.cpp compares every step with the division.
#include <bit>
#include <cstdint>

namespace servesim {

class MeanLengthWalk {
 public:
  // Steps 0, 1, ..., steps - 1 of a run of `seqs` (>= 1) sequences whose contexts sum to
  // `context_sum` (>= 0) at step 0.
  MeanLengthWalk(std::int64_t context_sum, std::int64_t seqs, std::int64_t steps)
      : sum_(context_sum),
        seqs_(seqs),
        b_(static_cast<double>(seqs)),
        q_(context_sum / seqs),
        exact_(sums_exact(context_sum, seqs, steps)) {}

  // How many of the next steps (at most `limit`) have the mean length
  // double(whole() + j) + fraction() for j = 0, 1, ...: the rest of the binade the walk is
  // in; 0 where the next step divides (skip those with skip(), or take one with next()).
  std::int64_t steps_without_division(std::int64_t limit) const {
    if (q_ < lo_ || q_ > hi_) return 0;
    return hi_ - q_ + 1 < limit ? hi_ - q_ + 1 : limit;
  }
  std::int64_t whole() const { return q_ + 1; }
  double fraction() const { return g_; }
  // Past `steps` steps counted by steps_without_division.
  void skip(std::int64_t steps) {
    sum_ += steps * seqs_;
    q_ += steps;
  }

  // The next step's mean length (step 0's on the first call).
  double next() {
    double s;
    if (q_ >= lo_ && q_ <= hi_) {
      s = static_cast<double>(q_ + 1) + g_;
    } else {
      const double x = static_cast<double>(sum_) / b_;
      s = x + 1.0;
      enter_binade(x);
    }
    sum_ += seqs_;
    ++q_;
    return s;
  }

 private:
  static constexpr std::int64_t kLargestSum = std::int64_t{1} << 52;

  // Every step's sum below 2^52, so double(sum) is the sum itself (the argument needs it).
  static bool sums_exact(std::int64_t context_sum, std::int64_t seqs, std::int64_t steps) {
    if (context_sum < 0 || seqs < 1 || steps < 0 || seqs > kLargestSum || steps + 1 > kLargestSum / seqs) return false;
    return context_sum < kLargestSum - (steps + 1) * seqs;
  }

  // x = fl(sum_ / b_): g for q_'s binade, unless the argument does not hold there.
  void enter_binade(double x) {
    if (!exact_ || q_ < 1 || q_ >= kLargestSum) {
      lo_ = 1;
      hi_ = 0;  // never in range
      return;
    }
    const auto lo = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(q_)));
    lo_ = lo;
    hi_ = 2 * lo - 1;
    g_ = x - static_cast<double>(q_);
  }

  std::int64_t sum_;
  std::int64_t seqs_;
  double b_;
  std::int64_t q_;  // sum_ / seqs_
  bool exact_;
  std::int64_t lo_ = 1, hi_ = 0;  // the binade of q in which x = q + g_
  double g_ = 0;
};

}  // namespace servesim
