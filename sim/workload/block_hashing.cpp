#include "sim/workload/block_hashing.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/core/mix64.h"

namespace servesim {
std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) {
  return mix64(seed ^ (mix64(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

std::int64_t total_tokens(std::span<const ContentRun> runs) {
  std::int64_t total = 0;
  for (const ContentRun& r : runs) total += r.tokens;
  return total;
}

std::vector<std::uint64_t> chained_block_hashes(std::span<const ContentRun> runs, std::int64_t block_tokens,
                                                bool partial_last) {
  SS_ASSERT(block_tokens >= 1, "block size");
  // Canonical runs: empty ones dropped, continuations merged.
  std::vector<ContentRun> merged;
  merged.reserve(runs.size());
  for (const ContentRun& r : runs) {
    if (r.tokens <= 0) continue;
    if (!merged.empty() && merged.back().key == r.key && merged.back().offset + merged.back().tokens == r.offset) {
      merged.back().tokens += r.tokens;
    } else {
      merged.push_back(r);
    }
  }
  const std::int64_t max_blocks = std::max<std::int64_t>(kMaxHashedTokens / block_tokens, 1);
  std::vector<std::uint64_t> hashes;
  hashes.reserve(static_cast<std::size_t>(std::min(total_tokens(merged) / block_tokens, max_blocks)));
  std::uint64_t parent = 0x70726566697863ULL;  // the chain's root ("prefixc")
  std::size_t run = 0;
  std::int64_t used = 0;  // tokens of merged[run] already placed in earlier blocks
  while (static_cast<std::int64_t>(hashes.size()) < max_blocks) {
    std::uint64_t h = hash_combine(parent, 0xb10c);
    std::int64_t need = block_tokens;
    while (need > 0 && run < merged.size()) {
      const ContentRun& r = merged[run];
      const std::int64_t take = std::min(need, r.tokens - used);
      h = hash_combine(hash_combine(hash_combine(h, r.key), static_cast<std::uint64_t>(r.offset + used)),
                       static_cast<std::uint64_t>(take));
      need -= take;
      used += take;
      if (used == r.tokens) {
        ++run;
        used = 0;
      }
    }
    if (need > 0) {  // ran out of tokens: the last block is partial (or absent)
      if (partial_last && need < block_tokens) hashes.push_back(hash_combine(h, static_cast<std::uint64_t>(need)));
      break;
    }
    hashes.push_back(h);
    parent = h;
  }
  return hashes;
}

}  // namespace servesim
