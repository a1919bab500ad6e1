#pragma once
// Count, sum and sum of squares of non-negative integers, kept exactly in wide integers,
// so that the mean and the variance they give do not depend on the order in which the
// values arrived (docs/metrics.md, "Moments"). The simulator's latencies are integer
// nanoseconds; the engine may hand a replica's inter-token gaps to the metrics in another
// order than the clock's (several steps at once), and an order-dependent floating-point
// recurrence such as Welford's would then change the last digits of a standard deviation.
#include <cstdint>

namespace servesim {

class ExactMoments {
 public:
  // Adds `count` copies of `value`. REQUIRES: the total count stays below 2^63.
  void add(std::uint64_t value, std::uint64_t count);
  void add(const ExactMoments& other);
  // Adds `n` values whose sum is `sum` and sum of squares `squares` (all exact).
  __extension__ void add_sums(std::uint64_t n, unsigned __int128 sum, unsigned __int128 squares);

  std::uint64_t count() const { return count_; }
  // The sum, rounded once (exact below 2^64 on x86-64's long double).
  long double sum() const;
  // Population variance (n sum(v^2) - sum(v)^2) / n^2: the numerator exact in 256 bits,
  // one rounding when it is divided. 0 when empty.
  long double variance() const;

 private:
  __extension__ using U128 = unsigned __int128;
  std::uint64_t count_ = 0;
  U128 sum_ = 0;                          // < 2^127: count < 2^63, values < 2^64
  std::uint64_t squares_[3] = {0, 0, 0};  // sum of v^2 x count, < 2^191, least significant limb first
};

}  // namespace servesim
