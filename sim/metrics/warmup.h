#pragma once
// The warm-up at the start of a run (the scenario's `warmup:`, docs/metrics.md "Warm-up"):
// requests that arrive within it are simulated as usual, so they load the cluster, but are
// left out of every figure of the summaries.
#include <cstdint>
#include <optional>

#include "sim/core/time.h"

namespace servesim {

struct WarmupSpec {
  std::optional<std::int64_t> requests;  // the first this many arrivals (of all classes)
  std::optional<Tick> time_ns;           // arrivals before this simulated time

  bool any() const { return requests.has_value() || time_ns.has_value(); }
  // Whether the request that arrived `arrival_index`-th (from 0, all classes together) at
  // `arrival_ns` is warm-up. With both limits, a request is warm-up if either covers it:
  // arrivals come in order, so the warm-up lasts until both have passed.
  bool covers(std::uint64_t arrival_index, Tick arrival_ns) const {
    return (requests && arrival_index < static_cast<std::uint64_t>(*requests)) || (time_ns && arrival_ns < *time_ns);
  }
};

}  // namespace servesim
