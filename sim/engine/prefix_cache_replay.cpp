#include "sim/engine/prefix_cache_replay.h"

#include <limits>
#include <memory>
#include <vector>

#include "sim/core/assert.h"

namespace servesim {
namespace {

// One LRU cache of blocks. Blocks are the trace's dense ids, so each has a fixed slot: a
// presence flag and links of a doubly linked list, most recently used at the front, closed
// by a sentinel slot. No hashing and no allocation while replaying.
class LruBlockCache {
 public:
  LruBlockCache(std::int64_t capacity_tokens, std::uint32_t distinct_keys)
      : capacity_(capacity_tokens),
        sentinel_(static_cast<std::int32_t>(distinct_keys)),
        prev_(distinct_keys + 1, -1),
        next_(distinct_keys + 1, -1),
        tokens_(distinct_keys, 0),
        stamp_(distinct_keys, 0),
        present_(distinct_keys, 0) {
    SS_ASSERT(distinct_keys < static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()), "replay size");
    prev_[at(sentinel_)] = next_[at(sentinel_)] = sentinel_;
  }

  // Evicted blocks go to `below` (a KV tier), or are gone (nullptr).
  void set_below(LruBlockCache* below) { below_ = below; }
  bool present(std::uint32_t id) const { return present_[id] != 0; }
  // A cached block becomes the most recently used.
  void touch(std::uint32_t id) {
    if (!present_[id]) return;
    unlink(static_cast<std::int32_t>(id));
    push_front(static_cast<std::int32_t>(id));
  }
  // A block evicted from the level above: cached as the most recently used, evicting the
  // least recently used as needed (one that cannot fit at all passes on down).
  void push(std::uint32_t id, std::int64_t tokens) {
    if (present_[id]) return touch(id);
    if (tokens > capacity_) {
      if (below_) below_->push(id, tokens);
      return;
    }
    while (used_ > capacity_ - tokens) evict(prev_[at(sentinel_)]);
    present_[id] = 1;
    tokens_[id] = tokens;
    used_ += tokens;
    push_front(static_cast<std::int32_t>(id));
  }

  // Tokens of the longest run of `ids` (from the first) that is cached.
  std::int64_t match(std::span<const std::uint32_t> ids, std::span<const std::int64_t> tokens) const {
    std::int64_t hit = 0;
    for (std::size_t j = 0; j < ids.size() && present_[ids[j]]; ++j) hit += tokens[j];
    return hit;
  }

  // Makes `ids` the most recently used blocks, ids[0] first, inserting those missing.
  void use(std::span<const std::uint32_t> ids, std::span<const std::int64_t> tokens) {
    ++stamp_now_;
    std::int64_t missing = 0;
    for (std::size_t j = 0; j < ids.size(); ++j) {
      const std::uint32_t id = ids[j];
      if (!present_[id]) {
        missing += tokens[j];
      } else if (stamp_[id] != stamp_now_) {
        stamp_[id] = stamp_now_;
        unlink(static_cast<std::int32_t>(id));  // off the list while in use; still counted in used_
      }
    }
    // Room for the missing blocks, from the least recently used blocks of other requests.
    while (used_ > capacity_ - missing && prev_[at(sentinel_)] != sentinel_) evict(prev_[at(sentinel_)]);
    bool stop = false;
    for (std::size_t j = 0; j < ids.size(); ++j) {
      const std::uint32_t id = ids[j];
      if (present_[id]) continue;
      if (stop || tokens[j] > capacity_ - used_) {
        stop = true;  // a block that does not fit breaks the chain: later ones are useless
        continue;
      }
      present_[id] = 1;
      stamp_[id] = stamp_now_;
      tokens_[id] = tokens[j];
      used_ += tokens[j];
    }
    // Back on the list, last block first, so the first ends up most recent. A block seen
    // twice in one request goes on once.
    for (std::size_t j = ids.size(); j-- > 0;) {
      const std::uint32_t id = ids[j];
      if (present_[id] && stamp_[id] == stamp_now_) {
        push_front(static_cast<std::int32_t>(id));
        stamp_[id] = stamp_now_ - 1;  // linked: not again in this loop (restamped next use)
      }
    }
  }

 private:
  static std::size_t at(std::int32_t i) { return static_cast<std::size_t>(i); }
  void unlink(std::int32_t i) {
    next_[at(prev_[at(i)])] = next_[at(i)];
    prev_[at(next_[at(i)])] = prev_[at(i)];
  }
  void push_front(std::int32_t i) {
    const std::int32_t first = next_[at(sentinel_)];
    prev_[at(i)] = sentinel_;
    next_[at(i)] = first;
    prev_[at(first)] = i;
    next_[at(sentinel_)] = i;
  }
  void evict(std::int32_t i) {
    unlink(i);
    present_[at(i)] = 0;
    used_ -= tokens_[at(i)];
    if (below_) below_->push(static_cast<std::uint32_t>(i), tokens_[at(i)]);
  }

  std::int64_t capacity_;
  std::int64_t used_ = 0;
  std::uint64_t stamp_now_ = 1;
  std::int32_t sentinel_;
  std::vector<std::int32_t> prev_, next_;
  std::vector<std::int64_t> tokens_;
  std::vector<std::uint64_t> stamp_;
  std::vector<char> present_;
  LruBlockCache* below_ = nullptr;
};

// One replica's cache and the KV tiers below it (ReplayTiers): levels[0] is the cache,
// then the CPU tier and the disk tier where they exist.
struct TieredCache {
  std::vector<std::unique_ptr<LruBlockCache>> levels;
  std::vector<int> tier;  // of each level: -1 the cache, 0 CPU, 1 disk

  TieredCache(std::int64_t capacity_tokens, const ReplayTiers& tiers, std::uint32_t distinct_keys) {
    levels.push_back(std::make_unique<LruBlockCache>(capacity_tokens, distinct_keys));
    tier.push_back(-1);
    const std::int64_t sizes[2] = {tiers.cpu_tokens, tiers.disk_tokens};
    for (int t = 0; t < 2; ++t) {
      if (sizes[t] <= 0) continue;
      levels.push_back(std::make_unique<LruBlockCache>(sizes[t], distinct_keys));
      levels[levels.size() - 2]->set_below(levels.back().get());
      tier.push_back(t);
    }
  }
  // The level holding `id`, the highest first, or -1.
  int level_of(std::uint32_t id) const {
    for (std::size_t l = 0; l < levels.size(); ++l)
      if (levels[l]->present(id)) return static_cast<int>(l);
    return -1;
  }
  // Tokens of the longest run of `ids` held at any level; with `point`, its tier hits are
  // counted there and the tiers' blocks touched (a lookup that admits the request).
  std::int64_t match(std::span<const std::uint32_t> ids, std::span<const std::int64_t> tokens,
                     CacheCurvePoint* point) {
    if (levels.size() == 1) return levels[0]->match(ids, tokens);
    std::int64_t hit = 0;
    for (std::size_t j = 0; j < ids.size(); ++j) {
      const int l = level_of(ids[j]);
      if (l < 0) break;
      hit += tokens[j];
      if (point && l > 0) {
        point->tier_hit_tokens[tier[static_cast<std::size_t>(l)]] += tokens[j];
        levels[static_cast<std::size_t>(l)]->touch(ids[j]);
      }
    }
    return hit;
  }
};

}  // namespace

CacheCurvePoint replay_prefix_cache(const PrefixUnitTrace& trace, std::int64_t capacity_tokens, int replicas,
                                    const ReplayRouter& route, const ReplayTiers& tiers) {
  SS_ASSERT(capacity_tokens >= 0 && replicas >= 1, "replay geometry");
  SS_ASSERT(replicas == 1 || route, "several replicas need a router");
  CacheCurvePoint point;
  point.size_tokens = capacity_tokens;
  point.prompt_tokens = trace.total_prompt_tokens;
  SS_ASSERT(trace.ids.size() == trace.keys.size(), "the trace needs assign_dense_ids()");
  std::vector<std::unique_ptr<TieredCache>> caches;
  for (int i = 0; i < replicas; ++i)
    caches.push_back(std::make_unique<TieredCache>(capacity_tokens, tiers, trace.distinct_keys));
  const std::span<const std::uint32_t> keys(trace.ids);
  const std::span<const std::int64_t> tokens(trace.tokens);
  std::vector<std::int64_t> cached(static_cast<std::size_t>(replicas), 0);
  for (std::size_t r = 0; r < trace.requests.size(); ++r) {
    const PrefixUnitTrace::Request& q = trace.requests[r];
    const auto lookup_keys = keys.subspan(q.lookup_begin, q.lookup_end - q.lookup_begin);
    const auto lookup_tokens = tokens.subspan(q.lookup_begin, q.lookup_end - q.lookup_begin);
    int target = 0;
    if (replicas > 1) {
      for (int i = 0; i < replicas; ++i)
        cached[static_cast<std::size_t>(i)] =
            caches[static_cast<std::size_t>(i)]->match(lookup_keys, lookup_tokens, nullptr);
      target = route(r, cached);
      SS_ASSERT(target >= 0 && target < replicas, "router picked no replica");
    }
    point.hit_tokens += caches[static_cast<std::size_t>(target)]->match(lookup_keys, lookup_tokens, &point);
    caches[static_cast<std::size_t>(target)]->levels[0]->use(
        keys.subspan(q.insert_begin, q.insert_end - q.insert_begin),
        tokens.subspan(q.insert_begin, q.insert_end - q.insert_begin));
  }
  point.hit_ratio = point.prompt_tokens > 0 ? static_cast<double>(point.hit_tokens) / static_cast<double>(point.prompt_tokens) : 0.0;
  return point;
}

}  // namespace servesim
