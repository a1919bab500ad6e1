#pragma once
// Where one request's time went, and what GPU time it consumed (docs/metrics.md,
// "Latency attribution" and "Cost"). The engine adds to these in O(1) per step the request
// is in, plus once per gap between its steps; nothing is stored per token.
//
// The time from arrival to the first token (or to the finish, for output 0) is cut into
// consecutive intervals, each given to exactly one part, so the parts sum exactly to the
// measured TTFT; likewise every gap between two tokens, so the decode parts sum exactly
// to finish - first token (the sum of the request's ITLs).
#include <bit>
#include <cmath>
#include <cstdint>

#include "sim/core/time.h"

namespace servesim {

// Arrival to first token (the prefill phase).
struct TtftParts {
  Tick queue_ns = 0;            // arrival -> first step that computed any of its tokens
  Tick prefill_compute_ns = 0;  // its own share of the prefill time of the steps it was in
  Tick batch_share_ns = 0;      // the rest of those steps: other chunks and decodes
  Tick stall_ns = 0;            // between its chunks, not in a step, not preempted
  Tick preemption_ns = 0;       // preempted, until its progress was recomputed / swapped back
  Tick kv_transfer_ns = 0;      // prefill/decode disaggregation: KV moved between pools (0 now)
  Tick overhead_ns = 0;         // engine CPU overheads, swap traffic, draft passes of its steps
  Tick kv_load_ns = 0;          // KV tiers: prefix blocks loaded back from CPU or disk in its steps
  Tick lora_load_ns = 0;        // multi-LoRA: adapters copied into GPU slots in its steps
  Tick total() const {
    return queue_ns + prefill_compute_ns + batch_share_ns + stall_ns + preemption_ns + kv_transfer_ns +
           overhead_ns + kv_load_ns + lora_load_ns;
  }
};

// First token to last token: the sum over all of the request's inter-token gaps.
struct DecodeParts {
  Tick decode_compute_ns = 0;         // the decode part of its steps (the whole batch's decode)
  Tick prefill_interference_ns = 0;   // the part of its steps spent on prefill chunks
  Tick stall_ns = 0;                  // not scheduled between two tokens, not preempted
  Tick preemption_ns = 0;             // preempted, until progress regained
  Tick overhead_ns = 0;               // CPU overheads, swap, draft passes of its steps
  Tick total() const {
    return decode_compute_ns + prefill_interference_ns + stall_ns + preemption_ns + overhead_ns;
  }
};

// Replica step time this request consumed, by token class. Times the replica's GPU count
// and price per GPU-ns this is its cost. A step's share is a fraction of a nanosecond, so
// shares are kept in fixed point, kUnitsPerNs units per ns (2^10: about a picosecond):
// integer sums are exact, so a request's total does not depend on how its steps' shares
// were added up (the engine may add a run of steps' shares at once; docs/metrics.md).
// int64 units hold 9e15 ns, over 100 days of one request's step time.
struct GpuTimeShares {
  static constexpr std::int64_t kUnitsPerNs = 1024;
  std::int64_t prefill_units = 0;  // computing its prompt (and recompute after preemption)
  std::int64_t cached_units = 0;   // attention reading the KV of its prefix-cache hits
  std::int64_t decode_units = 0;   // its share of the decode steps
  // A share of `ns` (a fraction of a step), rounded to the nearest unit.
  // (llround, inline for the usual 0 <= units < 2^53, as ticks_from_seconds: every step
  // rounds one.)
  static std::int64_t units_from_ns(double ns) {
    const double units = ns * kUnitsPerNs;
    if (units >= 0.0 && units < 9007199254740992.0) {
      const auto whole = static_cast<std::int64_t>(units);
      return units - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
    }
    return static_cast<std::int64_t>(std::llround(units));
  }
  static double ns_from_units(std::int64_t units) { return static_cast<double>(units) / kUnitsPerNs; }
  double prefill_ns() const { return ns_from_units(prefill_units); }
  double cached_ns() const { return ns_from_units(cached_units); }
  double decode_ns() const { return ns_from_units(decode_units); }
  double total_ns() const { return ns_from_units(prefill_units + cached_units + decode_units); }
};

// GpuTimeShares::units_from_ns(double(ns) / divisor) for a whole `ns` and a divisor fixed
// for many calls (a decode run's steps, each shared by its decodes), without a division.
// The same number: fl(ns / d) scaled by 1024 is exact, so units_from_ns rounds
// 1024 fl(ns / d) half up; 1024 ns / d has a fractional part that is a multiple of 1/d, so
// it is k + 1/2 exactly (then ns / d = (2k + 1) / 2048 is a double, and fl changes nothing)
// or lies 1/(2d) or more from every k + 1/2, farther than fl's error (1024 ns / d 2^-53)
// moves it while ns < 2^40. So the result is floor(n / D) with n = 2048 ns + d < 2^52 and
// D = 2d, which is (n m) >> (52 + l) for l = ceil(log2 D) and m = floor(2^(52 + l) / D) + 1
// (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994,
// theorem 4.2: 2^(52 + l) < m D <= 2^(52 + l) + 2^l). Outside 0 <= ns < 2^40 (18 minutes),
// units_from_ns itself.
class EvenShareUnits {
 public:
  explicit EvenShareUnits(std::int64_t divisor) : divisor_(divisor) {
    const auto d = static_cast<std::uint64_t>(2 * divisor);
    shift_ = static_cast<int>(std::bit_width(d - 1)) + kNumeratorBits;  // l: the least with 2^l >= d
    magic_ = static_cast<std::uint64_t>((U128{1} << shift_) / d) + 1;
  }
  std::int64_t divisor() const { return divisor_; }
  std::int64_t operator()(Tick ns) const {
    if (ns < 0 || ns >= (Tick{1} << 40))
      return GpuTimeShares::units_from_ns(static_cast<double>(ns) / static_cast<double>(divisor_));
    const auto n = static_cast<std::uint64_t>(2 * GpuTimeShares::kUnitsPerNs * ns + divisor_);  // < 2^52
    return static_cast<std::int64_t>((static_cast<U128>(n) * magic_) >> shift_);
  }

 private:
  __extension__ using U128 = unsigned __int128;
  static constexpr int kNumeratorBits = 52;
  std::int64_t divisor_;
  int shift_ = 0;
  std::uint64_t magic_ = 0;
};

struct RequestAccounting {
  // What every decode step updates comes first, so that it shares cache lines with the
  // request's other per-step fields (request_state.h; docs/performance.md).
  Tick mark_ns = -1;            // everything before this is accounted; -1: the arrival
  Tick max_itl_ns = -1;         // longest gap between two of its tokens; -1: none
  DecodeParts decode;
  GpuTimeShares gpu;
  TtftParts ttft;
  Tick prefill_saved_ns = 0;    // cost-model time the prefix-cache hit saved its prefill
};

}  // namespace servesim
