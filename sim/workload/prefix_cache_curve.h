#pragma once
// The figures of a prefix-cache replay at one cache size, and the KV tiers below each cache:
// plain data that the engine's replay (sim/engine/prefix_cache_replay.h) fills and the
// cache-curve study hands back, kept apart so that a caller sees the answer without the
// replay's machinery.
#include <cstdint>
#include <limits>

namespace servesim {

inline constexpr std::int64_t kUnlimitedCacheTokens = std::numeric_limits<std::int64_t>::max();

struct CacheCurvePoint {
  std::int64_t size_tokens = 0;   // per replica; kUnlimitedCacheTokens for "inf"
  std::int64_t hit_tokens = 0;    // prompt tokens found cached
  std::int64_t prompt_tokens = 0; // all prompt tokens
  double hit_ratio = 0;           // hit_tokens / prompt_tokens (0 for an empty trace)
  // With tiers below the cache: of hit_tokens, those found in the CPU and disk tiers.
  std::int64_t tier_hit_tokens[2] = {0, 0};
};

// KV tiers below each replica's cache (docs/prefix-caching.md, section 6a), in tokens per
// replica; 0: no such tier. A block the cache evicts goes to the CPU tier, whose LRU goes
// to disk, whose LRU is gone; a lookup goes on into the tiers, where a hit stays (touched).
struct ReplayTiers {
  std::int64_t cpu_tokens = 0;
  std::int64_t disk_tokens = 0;
  bool any() const { return cpu_tokens > 0 || disk_tokens > 0; }
};

}  // namespace servesim
