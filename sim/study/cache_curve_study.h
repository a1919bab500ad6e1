#pragma once
// The cache-curve study (`servesim cache-curve`, docs/prefix-caching.md): a trace's prefix
// structure replayed through an LRU prefix cache of each size, with no timing; with several
// replicas, one cache each and a cluster router choosing each request's replica.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/workload/prefix_cache_curve.h"

namespace servesim {

struct CacheCurveRequest {
  std::string trace_path;
  std::string format;                   // mooncake | csv (the formats with prefix information)
  std::vector<std::int64_t> sizes;      // tokens per cache; kUnlimitedCacheTokens for none
  int replicas = 1;
  std::string router = "round-robin";
  std::int64_t hash_block_tokens = 512;  // csv: tokens per prefix hash
  ReplayTiers tiers;                      // KV tiers below each cache (none by default)
};

struct CacheCurveStudy {
  std::size_t requests = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t block_tokens = 0;
  std::vector<CacheCurvePoint> points;  // one per size, in order
};

// Throws ConfigError for an unknown router (key "router") or an unreadable trace.
CacheCurveStudy run_cache_curve(const CacheCurveRequest& request);

}  // namespace servesim
