#pragma once
// The memory time of a decode run's steps that lie in one segment of the decode-attention
// curve (KernelCostModel::decode_run_memory_costs): step j's mean length is
// s = double(whole + j) + fraction, and its time is
//   ticks_from_seconds(rest_s + (base + t * rise) * layers),  t = (s - from) / width
// (times the reciprocal where the width is a power of two: the same quotient). Steps are
// priced while s stays below the segment's top.
//
// Two at a time where the machine has SSE2 (every x86-64): each lane does the scalar
// code's IEEE operations in its order -- subtract, multiply or divide, multiply, add,
// multiply, add, multiply, with no fused multiply-add -- so each lane's double is the
// scalar one, bit for bit. double(whole + j) is exact (whole + j < 2^53; the caller's walk
// holds sums below 2^52), and so is adding 2.0 to it. round_half_away's common case,
// truncating x + 0.5 for 1 <= x < 2^51, is what the lanes do for x below 2^31, where the
// 32-bit conversion gives the same integer; a pair outside that, or with a lane at or past
// the top, is left to the scalar loop. tests/hardware/kernel_decode_run_test.cpp compares
// every step with step_cost.
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/core/time.h"

namespace servesim {

struct CurveSegment {
  double from = 0, width = 1, base = 0, rise = 0, reciprocal = 1, top = 0;
  bool width_power_of_two = false;
  // The attention seconds at mean length s in the segment: decode_curve_at's interpolation.
  double at(double s) const {
    const double t = width_power_of_two ? (s - from) * reciprocal : (s - from) / width;
    return base + t * rise;
  }
};

// Prices steps k, k + 1, ... (at most up to `end`) whose mean length double(whole) +
// fraction, double(whole + 1) + fraction, ... is below seg.top, into out[k], ...;
// returns the first step it did not price (its mean length at or past the top, or `end`).
template <bool kWidthPowerOfTwo>
std::int64_t price_segment_steps(const CurveSegment& seg, double rest_s, double layers, std::int64_t whole,
                                 double fraction, std::int64_t k, std::int64_t end, Tick* out) {
#if defined(__SSE2__)
  {
    const __m128d from = _mm_set1_pd(seg.from), scale = _mm_set1_pd(kWidthPowerOfTwo ? seg.reciprocal : seg.width);
    const __m128d base = _mm_set1_pd(seg.base), rise = _mm_set1_pd(seg.rise), top = _mm_set1_pd(seg.top);
    const __m128d rest = _mm_set1_pd(rest_s), layer_count = _mm_set1_pd(layers), ns_per_s = _mm_set1_pd(1e9);
    const __m128d frac = _mm_set1_pd(fraction), one = _mm_set1_pd(1.0), half = _mm_set1_pd(0.5);
    const __m128d two = _mm_set1_pd(2.0), int32_limit = _mm_set1_pd(2147483647.0);
    __m128d wholes = _mm_set_pd(static_cast<double>(whole + 1), static_cast<double>(whole));
    const std::int64_t first = k;
    while (k + 2 <= end) {
      const __m128d s = _mm_add_pd(wholes, frac);
      const __m128d offset = _mm_sub_pd(s, from);
      const __m128d t = kWidthPowerOfTwo ? _mm_mul_pd(offset, scale) : _mm_div_pd(offset, scale);
      const __m128d attention_s = _mm_add_pd(base, _mm_mul_pd(t, rise));
      const __m128d x = _mm_mul_pd(_mm_add_pd(rest, _mm_mul_pd(attention_s, layer_count)), ns_per_s);
      const __m128d rounded = _mm_add_pd(x, half);
      // Both lanes below the top and in the plain case, else the scalar loop takes over.
      const __m128d plain = _mm_and_pd(_mm_cmplt_pd(s, top), _mm_and_pd(_mm_cmpge_pd(x, one), _mm_cmplt_pd(rounded, int32_limit)));
      if (_mm_movemask_pd(plain) != 3) break;
      // Positive 32-bit integers: widened to 64 bits with zeros, both stored at once.
      const __m128i ticks = _mm_cvttpd_epi32(rounded);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), _mm_unpacklo_epi32(ticks, _mm_setzero_si128()));
      wholes = _mm_add_pd(wholes, two);
      k += 2;
    }
    whole += k - first;
  }
#endif
  for (; k < end; ++k, ++whole) {
    const double s = static_cast<double>(whole) + fraction;
    if (!(s < seg.top)) break;
    out[k] = ticks_from_seconds(rest_s + seg.at(s) * layers);
  }
  return k;
}

}  // namespace servesim
