#include "sim/metrics/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "sim/core/assert.h"

namespace servesim {

// The buckets of the default accuracy between 2^-20 (below kMinPositiveValue) and 2^64
// (above any integer the simulator adds), for finding a value's bucket without a log():
// each octave in 64 equal parts, each part's lowest bucket (a part spans a ratio of at
// most 1 + 1/64, under gamma^2, so at most three buckets), and each bucket's inside with
// the margins of a hint's (index_missing_hint). A value strictly inside a bucket's is in
// that bucket; one nearer an edge than the margins is left to the log.
struct QuantileSketch::BucketTable {
  static constexpr int kMinExponent = -20;
  static constexpr int kOctaves = 64 - kMinExponent;
  static constexpr int kPartBits = 6;
  std::vector<int> lowest;  // by (exponent - kMinExponent) << kPartBits | top kPartBits of the mantissa
  int first_index = 0;
  std::vector<double> inside;  // (low, high) of bucket first_index + k at 2k, 2k + 1

  explicit BucketTable(const QuantileSketch& s) {
    lowest.resize(static_cast<std::size_t>(kOctaves) << kPartBits);
    for (std::size_t k = 0; k < lowest.size(); ++k) {
      const int exponent = kMinExponent + static_cast<int>(k >> kPartBits);
      const double part = 1.0 + static_cast<double>(k & ((1u << kPartBits) - 1)) / (1u << kPartBits);
      lowest[k] = s.bucket_index(std::ldexp(part, exponent));
    }
    first_index = lowest.front();
    for (int index = first_index; index <= lowest.back() + 2; ++index) {
      inside.push_back(std::exp((index - 1) * s.log_gamma_) * (1 + 1e-9));
      inside.push_back(std::exp(index * s.log_gamma_) * (1 - 1e-9));
    }
  }
};

QuantileSketch::QuantileSketch(double relative_accuracy)
    : alpha_(relative_accuracy),
      gamma_((1.0 + relative_accuracy) / (1.0 - relative_accuracy)),
      log_gamma_(std::log((1.0 + relative_accuracy) / (1.0 - relative_accuracy))) {
  SS_ASSERT(relative_accuracy > 0.0 && relative_accuracy < 1.0,
            "sketch relative accuracy must lie in (0, 1)");
  if (relative_accuracy == kDefaultRelativeAccuracy) {
    static const BucketTable table(*this);  // built once, read-only after
    table_ = &table;
  }
}

int QuantileSketch::bucket_index(double value) const {
  return static_cast<int>(std::ceil(std::log(value) / log_gamma_));
}

int QuantileSketch::table_bucket_index(double value) const {
  if (table_ != nullptr) {
    using T = BucketTable;
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const auto part = static_cast<std::int64_t>(bits >> (52 - T::kPartBits)) -
                      (static_cast<std::int64_t>(1023 + T::kMinExponent) << T::kPartBits);
    if (part >= 0 && part < static_cast<std::int64_t>(table_->lowest.size())) {
      int index = table_->lowest[static_cast<std::size_t>(part)];
      const double* inside = table_->inside.data() + 2 * (index - table_->first_index);
      for (int k = 0; k < 3; ++k, ++index, inside += 2)
        if (value > inside[0] && value < inside[1]) return index;
    }
  }
  return bucket_index(value);
}

double QuantileSketch::bucket_value(int index) const {
  // The point of (gamma^(i-1), gamma^i] whose relative distance to both ends is alpha.
  return 2.0 * std::pow(gamma_, index) / (gamma_ + 1.0);
}

void QuantileSketch::grow_to_cover(int index) {
  if (counts_.empty()) {
    counts_.assign(1, 0);
    offset_ = index;
    return;
  }
  if (index < offset_) {
    counts_.insert(counts_.begin(), static_cast<std::size_t>(offset_ - index), 0);
    offset_ = index;
  } else if (index >= offset_ + static_cast<int>(counts_.size())) {
    counts_.resize(static_cast<std::size_t>(index - offset_ + 1), 0);
  }
}

namespace {
// last_index_ of a value counted in the zero bucket (no real bucket index is this low).
constexpr int kZeroBucket = std::numeric_limits<int>::min();
}  // namespace

QuantileSketch::Moments QuantileSketch::combine(const Moments& a, const Moments& b) {
  if (b.count == 0) return a;
  if (a.count == 0) return b;
  const double total = a.count + b.count;
  const double weight = b.count / total;
  const double delta = b.mean - a.mean;
  return Moments{total, a.mean + delta * weight, a.m2 + b.m2 + delta * delta * a.count * weight};
}

void QuantileSketch::fold_pending(ExactMoments& exact, Moments& inexact, long double& inexact_sum) const {
  if (pending_count_ == 0) return;
  if (is_exact_integer(last_value_)) {
    exact.add(static_cast<std::uint64_t>(last_value_), static_cast<std::uint64_t>(pending_count_));
  } else {
    inexact = combine(inexact, Moments{static_cast<double>(pending_count_), last_value_, 0.0});
    inexact_sum += static_cast<long double>(last_value_) * static_cast<long double>(pending_count_);
  }
}

void QuantileSketch::moments_with_pending(ExactMoments& exact, Moments& inexact, long double& inexact_sum) const {
  exact = exact_;
  inexact = inexact_;
  inexact_sum = inexact_sum_;
  fold_pending(exact, inexact, inexact_sum);
}

void QuantileSketch::settle_pending() {
  fold_pending(exact_, inexact_, inexact_sum_);
  pending_count_ = 0;
}

// index_with_hint when the value is not well inside the hint's bucket (inside it, away from
// its edges by far more than the log's rounding, the index is the hint's, without the log).
int QuantileSketch::index_missing_hint(double value, IndexHint* hint) const {
  if (hint == nullptr) return table_bucket_index(value);
  const int index = table_bucket_index(value);
  if (index != hint->missed) {  // bounds only for the second value off the hint in a bucket: two exp()
    hint->missed = index;
    return index;
  }
  // Bucket i holds (gamma^(i-1), gamma^i]; the relative margin 1e-9 is ~10^4 times the
  // error of log(v) / ln(gamma) and of the bounds themselves (tests compare every index).
  if (table_ != nullptr && index >= table_->first_index &&
      2 * static_cast<std::size_t>(index - table_->first_index) < table_->inside.size()) {
    const double* inside = table_->inside.data() + 2 * (index - table_->first_index);  // the same bounds
    *hint = IndexHint{index, inside[0], inside[1], kUnknownIndex};
    return index;
  }
  *hint = IndexHint{index, std::exp((index - 1) * log_gamma_) * (1 + 1e-9), std::exp(index * log_gamma_) * (1 - 1e-9),
                    kUnknownIndex};
  return index;
}

void QuantileSketch::add(double value, std::int64_t count) {
  int index = kUnknownIndex;
  add_with_index(value, count, index);
}

void QuantileSketch::add_to_both(QuantileSketch& a, QuantileSketch& b, double value, std::int64_t count,
                                 IndexHint* hint) {
  SS_ASSERT(a.alpha_ == b.alpha_, "sharing a bucket index between sketches of different accuracy");
  int index = kUnknownIndex;
  a.add_with_index(value, count, index, hint);
  b.add_with_index(value, count, index, hint);
}

void QuantileSketch::count_in_bucket(int index, std::int64_t count) {
  if (index == kZeroBucket) {
    zero_count_ += count;
    return;
  }
  if (index < offset_ || index - offset_ >= static_cast<int>(counts_.size())) grow_to_cover(index);
  counts_[static_cast<std::size_t>(index - offset_)] += count;
}

void QuantileSketch::add_all_to(QuantileSketch& a, QuantileSketch* b, const std::int64_t* values, std::size_t n,
                                const CountRun* runs, std::size_t run_count, IndexHint* hint) {
  SS_ASSERT(b == nullptr || a.alpha_ == b->alpha_, "sharing a bucket index between sketches of different accuracy");
  SS_ASSERT(n < (std::size_t{1} << 12), "too many values at once");
  __extension__ using U128 = unsigned __int128;
  // Exact sums of value x count and value^2 x count. Values below 2^44 (~5 hours in ns)
  // square below 2^88; a run's sums are multiplied by its count once, which for counts
  // below 2^20 keeps every term, and the total over the fewer than 2^12 values, below
  // 2^120. Other values and counts go to `once` one by one.
  ExactMoments once;
  U128 sum = 0, squares = 0;
  std::uint64_t in_sums = 0;
  std::int64_t total = 0;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;  // values are >= 0
  // The bucket of the values counted in bucket_count, not yet added (none at first: no
  // bucket has this index).
  int bucket = kUnknownIndex;
  std::int64_t bucket_count = 0;
  const auto flush_bucket = [&] {
    if (bucket_count == 0) return;
    a.count_in_bucket(bucket, bucket_count);
    if (b != nullptr) b->count_in_bucket(bucket, bucket_count);
  };
  // The hint in locals: the bucket counts written in the loop cannot alias them. An empty
  // hint (0, 0) holds no value, like no hint.
  IndexHint local = hint != nullptr ? *hint : IndexHint{};
  for (std::size_t r = 0; r < run_count; ++r) {
    const std::size_t from = runs[r].from;
    const std::size_t to = r + 1 < run_count ? runs[r + 1].from : n;
    const std::int64_t count = runs[r].count;
    SS_ASSERT(from <= to && to <= n && count >= 0, "count runs must cover the values in order");
    if (count == 0 || from == to) continue;
    const auto times = static_cast<std::uint64_t>(count);
    const bool fast = times < (std::uint64_t{1} << 20);
    U128 run_sum = 0, run_squares = 0;
    std::uint64_t run_slow = 0;  // values that went to `once`
    for (std::size_t i = from; i < to; ++i) {
      const std::int64_t v = values[i];
      SS_ASSERT(v >= 0, "sketch values must be >= 0");
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      const auto u = static_cast<std::uint64_t>(v);
      if (fast && u < (std::uint64_t{1} << 44)) [[likely]] {
        run_sum += u;
        run_squares += static_cast<U128>(u) * u;
      } else {
        once.add(u, times);
        ++run_slow;
      }
      const auto value = static_cast<double>(v);
      // A hint's low bound is positive, so a value inside it is not zero.
      int index = local.index;
      if (!(value > local.low && value < local.high)) [[unlikely]]
        index = value < kMinPositiveValue ? kZeroBucket : a.index_missing_hint(value, hint != nullptr ? &local : nullptr);
      if (index != bucket) {
        flush_bucket();
        bucket_count = 0;
        bucket = index;
      }
      bucket_count += count;
    }
    sum += run_sum * times;
    squares += run_squares * times;
    in_sums += (to - from - run_slow) * times;
    total += static_cast<std::int64_t>(to - from) * count;
  }
  if (hint != nullptr) *hint = local;
  if (total == 0) return;
  flush_bucket();
  once.add_sums(in_sums, sum, squares);
  for (QuantileSketch* s : {&a, b}) {
    if (s == nullptr) continue;
    s->settle_pending();  // its own run of equal values first (exact: any order)
    s->exact_.add(once);
    const auto low = static_cast<double>(lo), high = static_cast<double>(hi);
    s->min_ = s->count_ == 0 ? low : std::min(s->min_, low);
    s->max_ = s->count_ == 0 ? high : std::max(s->max_, high);
    s->count_ += total;
  }
}

void QuantileSketch::add_with_index(double value, std::int64_t count, int& index, IndexHint* hint) {
  SS_ASSERT(value >= 0.0 && std::isfinite(value), "sketch values must be finite and >= 0");
  SS_ASSERT(count >= 0, "sketch counts must be >= 0");
  if (count == 0) return;

  if (value != last_value_) {
    settle_pending();
    last_value_ = value;
    if (value < kMinPositiveValue) {
      last_index_ = kZeroBucket;
    } else {
      if (index == kUnknownIndex) index = index_with_hint(value, hint);
      last_index_ = index;
      // Most new values land in buckets the array already covers: skip the call.
      if (last_index_ < offset_ || last_index_ - offset_ >= static_cast<int>(counts_.size()))
        grow_to_cover(last_index_);
    }
    if (count_ == 0) {
      min_ = value;
      max_ = value;
    } else {
      min_ = std::min(min_, value);
      max_ = std::max(max_, value);
    }
  }
  // The bucket of last_value_ exists: it was covered when that value first came, and the
  // array only grows.
  if (last_index_ == kZeroBucket) {
    zero_count_ += count;
  } else {
    counts_[static_cast<std::size_t>(last_index_ - offset_)] += count;
  }
  pending_count_ += count;
  count_ += count;
}

void QuantileSketch::merge(const QuantileSketch& other) {
  SS_ASSERT(other.alpha_ == alpha_, "merging sketches of different accuracy");
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
    return;
  }
  if (!other.counts_.empty()) {
    grow_to_cover(other.offset_);
    grow_to_cover(other.offset_ + static_cast<int>(other.counts_.size()) - 1);
    for (std::size_t k = 0; k < other.counts_.size(); ++k) {
      counts_[static_cast<std::size_t>(other.offset_ - offset_) + k] += other.counts_[k];
    }
  }
  zero_count_ += other.zero_count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  settle_pending();
  ExactMoments exact;
  Moments inexact;
  long double inexact_sum = 0;
  other.moments_with_pending(exact, inexact, inexact_sum);
  exact_.add(exact);
  inexact_ = combine(inexact_, inexact);
  inexact_sum_ += inexact_sum;
  count_ += other.count_;
}

double QuantileSketch::value_at_rank(std::int64_t rank) const {
  // The extreme ranks are known exactly; clamping the rest to [min, max] keeps the error
  // bound (every true value lies in that range) and removes bucket overshoot at the ends.
  if (rank <= 0) return min_;
  if (rank >= count_ - 1) return max_;
  // The zero bucket holds 0 and values below kMinPositiveValue; its smallest is min_.
  if (rank < zero_count_) return min_;
  std::int64_t seen = zero_count_;
  for (std::size_t k = 0; k < counts_.size(); ++k) {
    seen += counts_[k];
    if (seen > rank) {
      const double estimate = bucket_value(offset_ + static_cast<int>(k));
      return std::clamp(estimate, min_, max_);
    }
  }
  SS_ASSERT(false, "sketch bucket counts do not add up to its count");
  return max_;
}

double QuantileSketch::quantile(double q) const {
  SS_ASSERT(q >= 0.0 && q <= 1.0, "quantile must lie in [0, 1]");
  if (count_ == 0) return 0.0;
  const double rank = q * static_cast<double>(count_ - 1);
  const double low_rank = std::floor(rank);
  const auto low = static_cast<std::int64_t>(low_rank);
  const double fraction = rank - low_rank;
  const double low_value = value_at_rank(low);
  if (fraction == 0.0) return low_value;
  // A convex combination of two estimates each within alpha of its true value is within
  // alpha of the same combination of the true values.
  const double high_value = value_at_rank(low + 1);
  return low_value + (high_value - low_value) * fraction;
}

double QuantileSketch::sum() const {
  const AllMoments m = all_moments();
  return static_cast<double>(m.exact.sum() + m.inexact_sum);
}

double QuantileSketch::mean() const {
  if (count_ == 0) return 0.0;
  const AllMoments m = all_moments();
  return static_cast<double>((m.exact.sum() + m.inexact_sum) / static_cast<long double>(count_));
}

double QuantileSketch::stddev() const {
  if (count_ == 0) return 0.0;
  const AllMoments m = all_moments();
  const ExactMoments& exact = m.exact;
  const Moments& inexact = m.inexact;
  long double variance = exact.variance();
  if (inexact.count > 0) {  // non-integer values too: Chan's combination of the two parts
    const auto n = static_cast<double>(exact.count());
    const Moments integer_part{n, n > 0 ? static_cast<double>(exact.sum() / n) : 0.0, static_cast<double>(variance * n)};
    const Moments all = combine(integer_part, inexact);
    variance = all.m2 / all.count;
  }
  return variance > 0 ? static_cast<double>(std::sqrt(variance)) : 0.0;
}

double QuantileSketch::min() const { return count_ == 0 ? 0.0 : min_; }
double QuantileSketch::max() const { return count_ == 0 ? 0.0 : max_; }

}  // namespace servesim
