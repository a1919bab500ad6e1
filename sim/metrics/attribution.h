#pragma once
// Where one request's time went, and what GPU time it consumed (docs/metrics.md,
// "Latency attribution" and "Cost"). The engine adds to these in O(1) per step the request
// is in, plus once per gap between its steps; nothing is stored per token.
//
// The time from arrival to the first token (or to the finish, for output 0) is cut into
// consecutive intervals, each given to exactly one part, so the parts sum exactly to the
// measured TTFT; likewise every gap between two tokens, so the decode parts sum exactly
// to finish - first token (the sum of the request's ITLs).
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
  Tick total() const {
    return queue_ns + prefill_compute_ns + batch_share_ns + stall_ns + preemption_ns + kv_transfer_ns +
           overhead_ns;
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

// Replica step time (ns) this request consumed, by token class. Times the replica's GPU
// count and price per GPU-ns this is its cost. Doubles: shares of a step are fractions.
struct GpuTimeShares {
  double prefill_ns = 0;  // computing its prompt (and recompute after preemption)
  double cached_ns = 0;   // attention reading the KV of its prefix-cache hits
  double decode_ns = 0;   // its share of the decode steps
  double total() const { return prefill_ns + cached_ns + decode_ns; }
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
