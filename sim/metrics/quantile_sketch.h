#pragma once
// A streaming quantile sketch with a guaranteed relative error (DDSketch, Masson, Rim & Lee,
// VLDB 2019). A positive value v falls in bucket i = ceil(log_gamma(v)), gamma =
// (1 + alpha) / (1 - alpha); every value of bucket i lies in (gamma^(i-1), gamma^i], and the
// bucket's representative 2 gamma^i / (gamma + 1) is within relative error alpha of each of
// them. Zero has its own bucket. Counts are stored densely between the lowest and highest
// index seen, so memory is bounded by the value range, not by the number of values:
// values from 1e-6 to 9.2e18 (the whole int64 nanosecond range) span at most ~5,800
// buckets at alpha = 0.005.
//
// Besides the buckets the sketch keeps the exact count, min, max, and the sum and sum of
// squares (mean and standard deviation). Everything is deterministic, and for integer
// values (all the simulator adds) independent of the order: the same values added in any
// order give bit-identical results.
#include <cstdint>
#include <vector>

#include "sim/core/count_run.h"

#include "sim/metrics/exact_moments.h"

namespace servesim {

class QuantileSketch {
 public:
  static constexpr double kDefaultRelativeAccuracy = 0.005;
  // Positive values below this are counted in the zero bucket: the sketch serves
  // nanoseconds and token counts, which are integers, and the floor bounds the bucket range.
  static constexpr double kMinPositiveValue = 1e-6;

  // REQUIRES: 0 < relative_accuracy < 1.
  explicit QuantileSketch(double relative_accuracy = kDefaultRelativeAccuracy);

  // Adds `count` copies of `value` (one step may emit many equal inter-token gaps).
  // REQUIRES: value >= 0 and finite, count >= 0.
  void add(double value, std::int64_t count = 1);
  // The bucket of the last value a caller added, kept by the caller: consecutive values from
  // one source (one replica's step gaps) mostly share a bucket, and a value well inside the
  // hint's bucket needs no log(). Results are the same with or without one.
  // A value off the hint's bucket (a step with a prefill among a replica's decode steps)
  // leaves it in place; the next value off it, if in that same other bucket, takes over.
  struct IndexHint {
    int index = 0;
    double low = 0, high = 0;  // values strictly between these surely fall in `index`; empty at first
    int missed = kUnknownIndex;  // the bucket of the last value off the hint
  };
  // a.add(value, count) and b.add(value, count), computing the value's bucket (a log) once
  // when both need it, and not at all when `hint` has it. REQUIRES: equal relative accuracy.
  static void add_to_both(QuantileSketch& a, QuantileSketch& b, double value, std::int64_t count,
                          IndexHint* hint = nullptr);
  // Counts for a stretch of values (sim/core/count_run.h), as a replica's steps' gaps came
  // to each of its lazy decodes while their number stayed the same.
  using CountRun = ::servesim::CountRun;
  // add_to_both(a, b, v, count, hint) for every v of `values` (integers >= 0; fewer than
  // 2^12 of them), with the counts of `runs` (counts >= 0, `from` non-decreasing; values
  // before the first run's come 0 times), at once: the buckets, count, min, max and
  // moments come out the same as adding them one by one (the moments are
  // order-independent for integers).
  static void add_all_to_both(QuantileSketch& a, QuantileSketch& b, const std::int64_t* values, std::size_t n,
                              const CountRun* runs, std::size_t run_count, IndexHint* hint = nullptr) {
    add_all_to(a, &b, values, n, runs, run_count, hint);
  }
  // The same into `a` alone (b null) or into both.
  static void add_all_to(QuantileSketch& a, QuantileSketch* b, const std::int64_t* values, std::size_t n,
                         const CountRun* runs, std::size_t run_count, IndexHint* hint = nullptr);
  // add(); `index` is the value's bucket if already known, else kUnknownIndex, and is set
  // when this call computes it (from `hint` where it can): a caller adding one value to
  // several sketches finds its bucket once. REQUIRES: a known index comes from a sketch
  // of the same relative accuracy.
  static constexpr int kUnknownIndex = -2147483647;
  void add_with_index(double value, std::int64_t count, int& index, IndexHint* hint = nullptr);
  // Afterwards this sketch equals one that had every value of both added to it (exactly
  // where the values are integers; else sum and variance up to floating-point rounding).
  // REQUIRES: other has the same relative accuracy.
  void merge(const QuantileSketch& other);

  // The q-quantile with numpy's default "linear" rule: the value at fractional rank
  // q * (count - 1) of the sorted values, interpolated between its two neighbours. The
  // result is within relative error alpha of the exact one. 0 when empty.
  // REQUIRES: 0 <= q <= 1.
  double quantile(double q) const;

  std::int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  double sum() const;
  double mean() const;    // 0 when empty
  double stddev() const;  // population standard deviation (numpy's np.std); 0 when empty
  double min() const;     // 0 when empty
  double max() const;     // 0 when empty
  double relative_accuracy() const { return alpha_; }
  // Number of stored buckets (memory is this times 8 bytes plus a constant).
  std::size_t bucket_count() const { return counts_.size(); }

 private:
  friend struct QuantileSketchProbe;  // tests/metrics/quantile_sketch_test.cpp
  int bucket_index(double value) const;
  // Bounds of the buckets of the default accuracy (quantile_sketch.cpp), or null.
  struct BucketTable;
  // bucket_index(value) for a value >= kMinPositiveValue, from the table where the value
  // lies well inside a bucket there, else by the log.
  int table_bucket_index(double value) const;
  // bucket_index(value) for a positive value, or the hint's index when the value lies
  // well inside that bucket; the hint then holds the value's bucket.
  int index_with_hint(double value, IndexHint* hint) const {
    if (hint != nullptr && value > hint->low && value < hint->high) return hint->index;  // inline: most gaps
    return index_missing_hint(value, hint);
  }
  int index_missing_hint(double value, IndexHint* hint) const;
  double bucket_value(int index) const;
  // The estimate of the value at 0-based integer rank `rank` in sorted order.
  double value_at_rank(std::int64_t rank) const;
  void grow_to_cover(int index);
  // `count` more values in bucket `index` (kZeroBucket: the zero bucket), covered first.
  void count_in_bucket(int index, std::int64_t count);

  double alpha_;
  double gamma_;
  double log_gamma_;  // ln(gamma)
  const BucketTable* table_ = nullptr;
  std::vector<std::int64_t> counts_;  // counts_[k] is bucket index offset_ + k
  int offset_ = 0;
  std::int64_t zero_count_ = 0;
  std::int64_t count_ = 0;
  double min_ = 0;
  double max_ = 0;

  // Moments for the mean and the standard deviation. Integer values (every value the
  // simulator adds: nanoseconds and token counts) go to exact wide-integer sums, so these
  // figures do not depend on the order the values came in (exact_moments.h); any other
  // value to a Welford running mean and M2 in double, with its sum in long double.
  struct Moments {
    double count = 0;
    double mean = 0;
    double m2 = 0;
  };
  // Chan, Golub & LeVeque's pairwise combination; b may be a run of equal values (m2 0).
  static Moments combine(const Moments& a, const Moments& b);
  static bool is_exact_integer(double value) { return value < 18446744073709551616.0 && value == static_cast<double>(static_cast<std::uint64_t>(value)); }
  // The settled moments with the pending run folded in (a copy; *this is unchanged).
  void moments_with_pending(ExactMoments& exact, Moments& inexact, long double& inexact_sum) const;
  struct AllMoments {
    ExactMoments exact;          // integer values
    Moments inexact;             // the others
    long double inexact_sum = 0;
  };
  AllMoments all_moments() const {
    AllMoments m;
    moments_with_pending(m.exact, m.inexact, m.inexact_sum);
    return m;
  }
  // Adds the pending run to the given moments (the sketch's own, or copies).
  void fold_pending(ExactMoments& exact, Moments& inexact, long double& inexact_sum) const;
  // Folds the pending run into the moments.
  void settle_pending();
  ExactMoments exact_;
  Moments inexact_;
  long double inexact_sum_ = 0;

  // The gaps of one engine step repeat one value many times over. A run of equal values
  // is therefore kept as (last_value_, pending_count_) and folded into the moments only
  // when a different value arrives: repeating the last value costs three integer
  // additions and no log().
  double last_value_ = -1.0;       // -1: none yet
  int last_index_ = 0;             // bucket of last_value_, kZeroBucket for the zero bucket
  std::int64_t pending_count_ = 0; // values equal to last_value_ not yet in the moments
};

}  // namespace servesim
