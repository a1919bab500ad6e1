#pragma once
// A traffic class's service-level objectives, as the metrics judge one request against
// them (docs/metrics.md, "SLOs and goodput").
#include "sim/core/time.h"
#include "sim/metrics/request_record.h"

namespace servesim {

struct SloTargets {
  Tick ttft_ns = -1;  // -1: no objective of that kind
  Tick itl_ns = -1;
  Tick tpot_ns = -1;
  Tick e2el_ns = -1;
  // `itl: {every: ...}`: the ITL objective holds for each of a request's gaps. Stated for
  // any other statistic it judges the request on its mean gap (its own ITL figure).
  bool itl_every = false;

  // A completed request meets its class's SLOs when each of its own figures is within its
  // bound: TTFT, TPOT and E2EL; for ITL its longest gap with `every`, else its mean gap. A
  // figure the request does not have (no TTFT for output 0, no gap for output 1) cannot
  // miss. Rejected and unfinished requests never meet them.
  // With `itl_by_mean` the ITL objective is judged on the mean gap whatever its statistic,
  // the per-request reading of vLLM's and DistServe's goodput.
  bool met_by(const RequestRecord& r, bool itl_by_mean = false) const {
    if (r.outcome != Outcome::completed) return false;
    auto within = [](Tick value, Tick target) { return target < 0 || value < 0 || value <= target; };
    const Tick gap = itl_every && !itl_by_mean ? r.acct.max_itl_ns : r.tpot_ns();
    return within(r.ttft_ns(), ttft_ns) && within(gap, itl_ns) && within(r.tpot_ns(), tpot_ns) &&
           within(r.e2el_ns(), e2el_ns);
  }
};

}  // namespace servesim
