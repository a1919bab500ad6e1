#pragma once
// The timing-free prefix-cache replay behind `servesim cache-curve` (docs/prefix-caching.md,
// "cache-curve"): every request of a trace, in order, looks up its prompt's blocks as a
// prefix (the first missing block ends the hit), then uses its blocks, which become the
// most recently used; the cache holds at most `capacity_tokens` tokens and evicts the least
// recently used blocks of earlier requests to make room. A request uses its blocks first to
// last with the first the most recent, so a chain loses its tail before its head (as the
// engine's free queue does). A block that does not fit even in an otherwise empty cache is
// not cached, and neither are the blocks after it. No request is ever in flight: each one
// finishes before the next arrives.
//
// With several replicas each has its own cache of `capacity_tokens`, and `route` picks the
// replica of each request from every replica's cached prefix for it.
#include <cstdint>
#include <functional>
#include <span>

#include "sim/workload/prefix_cache_curve.h"
#include "sim/workload/prefix_units.h"

namespace servesim {

// Replica for request `index` given `cached_tokens[i]`, replica i's cached prefix of it.
using ReplayRouter = std::function<int(std::size_t index, std::span<const std::int64_t> cached_tokens)>;

// REQUIRES: capacity_tokens >= 0, replicas >= 1, `route` set when replicas > 1 and returning
// an index in [0, replicas). Cost: O(blocks * replicas) hash lookups. The router sees each
// replica's prefix across its cache and tiers.
CacheCurvePoint replay_prefix_cache(const PrefixUnitTrace& trace, std::int64_t capacity_tokens, int replicas = 1,
                                    const ReplayRouter& route = {}, const ReplayTiers& tiers = {});

}  // namespace servesim
