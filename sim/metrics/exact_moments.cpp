#include "sim/metrics/exact_moments.h"

#include "sim/core/assert.h"

namespace servesim {
namespace {

__extension__ using U128 = unsigned __int128;

// 256-bit unsigned integers as four 64-bit limbs, least significant first: just what the
// variance's numerator needs.
struct U256 {
  std::uint64_t limb[4] = {0, 0, 0, 0};
};

// a (limbs `a_limbs` long) times b, into 256 bits. REQUIRES: the product fits.
U256 multiply(const std::uint64_t* a, int a_limbs, std::uint64_t b) {
  U256 r;
  U128 carry = 0;
  for (int i = 0; i < a_limbs; ++i) {
    const U128 p = static_cast<U128>(a[i]) * b + carry;
    r.limb[i] = static_cast<std::uint64_t>(p);
    carry = p >> 64;
  }
  if (a_limbs < 4) r.limb[a_limbs] = static_cast<std::uint64_t>(carry);
  return r;
}

U256 square(U128 x) {
  const std::uint64_t lo = static_cast<std::uint64_t>(x), hi = static_cast<std::uint64_t>(x >> 64);
  const U128 ll = static_cast<U128>(lo) * lo, lh = static_cast<U128>(lo) * hi, hh = static_cast<U128>(hi) * hi;
  // x^2 = hh 2^128 + 2 lh 2^64 + ll
  U256 r;
  r.limb[0] = static_cast<std::uint64_t>(ll);
  U128 mid = (ll >> 64) + static_cast<std::uint64_t>(lh) + static_cast<std::uint64_t>(lh);
  r.limb[1] = static_cast<std::uint64_t>(mid);
  mid = (mid >> 64) + (lh >> 64) + (lh >> 64) + static_cast<std::uint64_t>(hh);
  r.limb[2] = static_cast<std::uint64_t>(mid);
  r.limb[3] = static_cast<std::uint64_t>((mid >> 64) + (hh >> 64));
  return r;
}

// a - b. REQUIRES: a >= b.
U256 subtract(const U256& a, const U256& b) {
  U256 r;
  std::uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t d = a.limb[i] - b.limb[i];
    const std::uint64_t next = (a.limb[i] < b.limb[i]) || (d < borrow) ? 1 : 0;
    r.limb[i] = d - borrow;
    borrow = next;
  }
  SS_ASSERT(borrow == 0, "a variance's numerator cannot be negative");
  return r;
}

long double to_long_double(const U256& x) {
  long double r = 0;
  for (int i = 3; i >= 0; --i) r = r * 18446744073709551616.0L + static_cast<long double>(x.limb[i]);
  return r;
}

}  // namespace

void ExactMoments::add(std::uint64_t value, std::uint64_t count) {
  if (count == 0) return;
  SS_ASSERT(count < (std::uint64_t{1} << 63) - count_, "exact moments: count overflow");
  count_ += count;
  sum_ += static_cast<U128>(value) * count;
  // value^2 (< 2^128) times count (< 2^63), added into the 192-bit sum.
  const U128 v2 = static_cast<U128>(value) * value;
  const U128 low = static_cast<U128>(static_cast<std::uint64_t>(v2)) * count;
  const U128 high = static_cast<U128>(static_cast<std::uint64_t>(v2 >> 64)) * count;
  U128 acc = static_cast<U128>(squares_[0]) + static_cast<std::uint64_t>(low);
  squares_[0] = static_cast<std::uint64_t>(acc);
  acc = (acc >> 64) + squares_[1] + (low >> 64) + static_cast<std::uint64_t>(high);
  squares_[1] = static_cast<std::uint64_t>(acc);
  acc = (acc >> 64) + squares_[2] + (high >> 64);
  squares_[2] = static_cast<std::uint64_t>(acc);
  SS_ASSERT((acc >> 64) == 0, "exact moments: sum of squares overflow");
}

void ExactMoments::add(const ExactMoments& other) {
  SS_ASSERT(other.count_ < (std::uint64_t{1} << 63) - count_, "exact moments: count overflow");
  count_ += other.count_;
  sum_ += other.sum_;
  U128 acc = 0;
  for (int i = 0; i < 3; ++i) {
    acc = (acc >> 64) + squares_[i] + other.squares_[i];
    squares_[i] = static_cast<std::uint64_t>(acc);
  }
  SS_ASSERT((acc >> 64) == 0, "exact moments: sum of squares overflow");
}

void ExactMoments::add_sums(std::uint64_t n, U128 sum, U128 squares) {
  ExactMoments m;
  m.count_ = n;
  m.sum_ = sum;
  m.squares_[0] = static_cast<std::uint64_t>(squares);
  m.squares_[1] = static_cast<std::uint64_t>(squares >> 64);
  add(m);
}

long double ExactMoments::sum() const {
  return static_cast<long double>(static_cast<std::uint64_t>(sum_ >> 64)) * 18446744073709551616.0L +
         static_cast<long double>(static_cast<std::uint64_t>(sum_));
}

long double ExactMoments::variance() const {
  if (count_ == 0) return 0;
  const U256 numerator = subtract(multiply(squares_, 3, count_), square(sum_));
  const long double n = static_cast<long double>(count_);
  return to_long_double(numerator) / n / n;
}

}  // namespace servesim
