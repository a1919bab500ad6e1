#pragma once
// A traffic class's service-level objectives, as the metrics judge one request against
// them (docs/metrics.md, "SLO goodput").
#include "sim/core/time.h"
#include "sim/metrics/request_record.h"

namespace servesim {

struct SloTargets {
  Tick ttft_ns = -1;  // -1: no objective of that kind
  Tick itl_ns = -1;
  Tick tpot_ns = -1;
  Tick e2el_ns = -1;

  // A completed request meets its class's SLOs when each one it has holds: TTFT, every
  // gap between its tokens (its longest one), TPOT and E2EL at or under the target. A
  // figure the request does not have (no TTFT for output 0, no gap for output 1) cannot
  // miss. Rejected and unfinished requests never meet them.
  // With `itl_by_mean` the ITL objective is judged on the request's mean gap (its TPOT)
  // instead of its longest, the per-request reading of vLLM's and DistServe's goodput.
  bool met_by(const RequestRecord& r, bool itl_by_mean = false) const {
    if (r.outcome != Outcome::completed) return false;
    auto within = [](Tick value, Tick target) { return target < 0 || value < 0 || value <= target; };
    const Tick gap = itl_by_mean ? r.tpot_ns() : r.acct.max_itl_ns;
    return within(r.ttft_ns(), ttft_ns) && within(gap, itl_ns) && within(r.tpot_ns(), tpot_ns) &&
           within(r.e2el_ns(), e2el_ns);
  }
};

}  // namespace servesim
