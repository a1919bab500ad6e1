#include "sim/engine/kv_cache_manager.h"

#include <algorithm>
#include <cmath>

#include "sim/core/assert.h"
#include "sim/core/mix64.h"

namespace servesim {

KvCacheManager::KvCacheManager(std::int64_t num_blocks, int block_size, bool prefix_cache)
    : total_blocks_(num_blocks), free_blocks_(num_blocks), block_size_(block_size) {
  SS_ASSERT(num_blocks >= 0 && block_size >= 1, "KV cache geometry");
  if ((block_size & (block_size - 1)) == 0) {
    block_shift_ = 0;
    while ((1 << block_shift_) < block_size) ++block_shift_;
  }
  if (prefix_cache) pool_ = std::make_unique<BlockPool>(num_blocks);
}

std::uint64_t KvCacheManager::block_hash(const RequestSpec& spec, std::int64_t index) {
  if (index < static_cast<std::int64_t>(spec.block_hashes.size())) return spec.block_hashes[static_cast<std::size_t>(index)];
  // Salted so that a private hash never equals a source's hash except by a 2^-64 accident.
  return mix64(mix64(spec.id ^ 0x5eed0fca11ab1e5ULL) + static_cast<std::uint64_t>(index));
}

bool KvCacheManager::allocate(RequestState& request, std::int64_t new_tokens) {
  const std::int64_t needed = blocks_for(request.num_computed_tokens + new_tokens);
  const std::int64_t extra = needed - request.num_blocks_;
  if (extra <= 0) return true;
  if (extra > free_blocks_) return false;
  append_blocks(request, extra);
  return true;
}

void KvCacheManager::take_blocks(std::vector<std::int32_t>& ids, std::int64_t blocks) {
  SS_ASSERT(blocks >= 0 && blocks <= free_blocks_, "more KV blocks taken than are free");
  if (pool_) {
    pool_->allocate_into(ids, blocks);
    free_blocks_ = pool_->num_free();
    if (tiers_ && !evicted_.empty()) store_evictions();  // the tiers are always current
  } else {
    free_blocks_ -= blocks;
  }
  block_refs_ += blocks;
}

void KvCacheManager::append_blocks(RequestState& request, std::int64_t blocks) {
  take_blocks(request.block_ids_, blocks);
  request.num_blocks_ += blocks;
}

void KvCacheManager::allocate_unassigned(std::int64_t blocks) {
  take_blocks(unassigned_ids_, blocks);
  unassigned_ += blocks;
}

void KvCacheManager::assign_blocks(RequestState& request, std::int64_t blocks) {
  SS_ASSERT(blocks >= 0 && blocks <= unassigned_, "more KV blocks assigned than were allocated");
  if (pool_) {
    const auto from = unassigned_ids_.end() - static_cast<std::ptrdiff_t>(blocks);
    request.block_ids_.insert(request.block_ids_.end(), from, unassigned_ids_.end());
    unassigned_ids_.erase(from, unassigned_ids_.end());
  }
  unassigned_ -= blocks;
  request.num_blocks_ += blocks;
}

void KvCacheManager::free(RequestState& request) {
  if (pool_) {
    // Unfinished (preempted, or a prefix match not admitted): it may come back for its
    // blocks. Finished (or handed over): its deferred private hashes are dropped.
    if (request.status != RequestStatus::finished) remember_private_blocks(request);
    else request.private_pending_from_ = -1;
    SS_ASSERT(static_cast<std::int64_t>(request.block_ids_.size()) == request.num_blocks_, "block table out of step");
    const std::vector<std::int32_t>& ids = request.block_ids_;
    // Blocks past the source's hashes have private hashes, registered only with a table
    // (remember_private_blocks, cache_blocks): without one they are plain blocks, whose
    // records need no visit (block_pool.h). The rest may hold hashes or be shared.
    std::size_t plain_from = ids.size();
    if (request.private_blocks_owner_ != this)
      plain_from = std::min(ids.size(), request.spec.block_hashes.size());
    pool_->release_plain_reversed(ids.data() + plain_from, ids.size() - plain_from);
    constexpr std::size_t kAhead = 8;  // overlap the cache misses of a table's records
    for (std::size_t i = plain_from; i-- > 0;) {
      if (i >= kAhead) pool_->prefetch(ids[i - kAhead]);
      pool_->release(ids[i]);
    }
    request.block_ids_.clear();
    free_blocks_ = pool_->num_free();
  } else {
    free_blocks_ += request.num_blocks_;
  }
  block_refs_ -= request.num_blocks_;
  request.num_blocks_ = 0;
  SS_ASSERT(free_blocks_ <= total_blocks_, "more KV blocks freed than exist");
}

std::int64_t KvCacheManager::match_prefix(RequestState& request) {
  SS_ASSERT(request.num_blocks_ == 0 && request.num_computed_tokens == 0, "prefix match of a request holding KV");
  if (!pool_) return 0;
  const std::int64_t max_blocks = whole_blocks(request.num_tokens() - 1);
  for (std::int64_t j = 0; j < max_blocks; ++j) {
    const std::int32_t b = find_cached(request, j);
    if (b < 0) break;
    pool_->touch(b);
    request.block_ids_.push_back(b);
  }
  const auto hit_blocks = static_cast<std::int64_t>(request.block_ids_.size());
  request.tier_load_blocks_[0] = request.tier_load_blocks_[1] = 0;
  std::int64_t tier_blocks = 0;
  if (tiers_) {
    // The prefix goes on in the tiers, block by block, while its source's hashes are
    // found there (private hashes are never stored).
    const std::int64_t last = std::min(max_blocks, static_cast<std::int64_t>(request.spec.block_hashes.size()));
    constexpr std::int64_t kAhead = 4;  // overlap the index's cache misses (a big tier's are many)
    for (std::int64_t j = hit_blocks; j < last; ++j) {
      if (j + kAhead < last) tiers_->prefetch(request.spec.block_hashes[static_cast<std::size_t>(j + kAhead)]);
      const KvTiers::Tier t = tiers_->find(request.spec.block_hashes[static_cast<std::size_t>(j)]);
      if (t == KvTiers::kNone) break;
      ++request.tier_load_blocks_[t];
      ++tier_blocks;
    }
  }
  const std::int64_t hit_tokens = (hit_blocks + tier_blocks) * block_size_;
  request.num_blocks_ = hit_blocks;
  request.num_computed_tokens = hit_tokens;  // the tiers' blocks get HBM blocks at allocation
  block_refs_ += hit_blocks;
  free_blocks_ = pool_->num_free();
  if (request.first_scheduled_ns < 0) {
    request.cached_prompt_tokens = std::min(hit_tokens, request.spec.prompt_tokens);
    for (int t = 0; t < KvTiers::kTiers; ++t) request.tier_hit_tokens[t] = request.tier_load_blocks_[t] * block_size_;
  }
  if (hit_blocks + tier_blocks > 0) matched_.push_back(&request);
  return hit_tokens;
}

void KvCacheManager::drop_unadmitted_matches() {
  for (RequestState* r : matched_) {
    if (r->status != RequestStatus::waiting || r->num_computed_tokens == 0) continue;  // admitted, or already reset
    if (r->num_blocks_ > 0) free(*r);
    r->num_computed_tokens = 0;
    r->tier_load_blocks_[0] = r->tier_load_blocks_[1] = 0;
    if (r->first_scheduled_ns < 0) r->cached_prompt_tokens = r->tier_hit_tokens[0] = r->tier_hit_tokens[1] = 0;
  }
  matched_.clear();
}

void KvCacheManager::cache_computed_blocks(RequestState& request, std::int64_t computed_before) {
  if (!pool_) return;
  const std::int64_t first = whole_blocks(computed_before);
  if (whole_blocks(request.num_computed_tokens) <= first) return;
  cache_blocks(request, first, whole_blocks(request.num_computed_tokens), true, true);
}

void KvCacheManager::cache_blocks(RequestState& request, std::int64_t first, std::int64_t last_wanted, bool source,
                                  bool private_hashes) {
  const std::int64_t last = std::min(last_wanted, static_cast<std::int64_t>(request.block_ids_.size()));
  const auto source_blocks = static_cast<std::int64_t>(request.spec.block_hashes.size());
  if (request.private_blocks_owner_ != this) {
    // No table here yet: since its admission to this cache it has held every block it
    // computed, in fresh blocks (no hit can give it a private block: find_cached answers
    // -1 without a table). Its private hashes can only be looked up by itself, after it
    // frees its blocks unfinished (a preemption), and a block it holds cannot be evicted:
    // so registering them is deferred to that moment (remember_private_blocks), and a
    // request that finishes never registers them at all. Only where the deferred range
    // starts is noted: the ranges of successive calls are contiguous.
    if (private_hashes && last > source_blocks && request.private_pending_from_ < 0)
      request.private_pending_from_ = std::max(first, source_blocks);
    if (!source) return;
    for (std::int64_t j = first; j < std::min(last, source_blocks); ++j)
      pool_->cache(request.block_ids_[static_cast<std::size_t>(j)], request.spec.block_hashes[static_cast<std::size_t>(j)]);
    return;
  }
  if (private_hashes && last > source_blocks) {  // the table, sized once (not per block)
    const auto needed = static_cast<std::size_t>(last - source_blocks);
    if (request.private_blocks_.size() < needed) request.private_blocks_.resize(needed, -1);
  }
  for (std::int64_t j = first; j < last; ++j) {
    const std::int32_t b = request.block_ids_[static_cast<std::size_t>(j)];
    if (j < source_blocks) {
      if (source) pool_->cache(b, request.spec.block_hashes[static_cast<std::size_t>(j)]);
      continue;
    }
    if (!private_hashes) break;  // every block from here on has a private hash
    // A private hash: registered once, in the block that first computed it, like cache().
    std::int32_t& holder = request.private_blocks_[static_cast<std::size_t>(j - source_blocks)];
    const std::uint64_t hash = block_hash(request.spec, j);
    if (holder >= 0 && pool_->holds(holder, hash)) continue;  // computed before, still cached
    if (pool_->cache_private(b, hash)) holder = b;
  }
}

void KvCacheManager::remember_private_blocks(RequestState& request) {
  if (request.private_blocks_owner_ == this) return;  // the table is kept as it goes
  const auto source_blocks = static_cast<std::int64_t>(request.spec.block_hashes.size());
  const std::int64_t last =
      std::min(whole_blocks(request.num_computed_tokens), static_cast<std::int64_t>(request.block_ids_.size()));
  request.private_blocks_.clear();
  request.private_blocks_owner_ = this;
  // The deferred registrations (cache_blocks), in block order as they would have come,
  // and the table they make. Blocks before the deferred range were not computed here (a
  // hand-over's prompt) and stay unregistered, as before.
  const std::int64_t from = request.private_pending_from_;
  request.private_pending_from_ = -1;
  if (from < 0) return;
  request.private_blocks_.assign(static_cast<std::size_t>(std::max<std::int64_t>(0, from - source_blocks)), -1);
  for (std::int64_t j = from; j < last; ++j) {
    const std::int32_t b = request.block_ids_[static_cast<std::size_t>(j)];
    // Succeeds (a fresh block has no hash); were it ever refused, the table would name a
    // block that does not hold the hash, which every reader treats as no holder.
    pool_->cache_private(b, block_hash(request.spec, j));
    request.private_blocks_.push_back(b);
  }
}

std::int32_t KvCacheManager::find_cached(const RequestState& request, std::int64_t index) const {
  const auto source_blocks = static_cast<std::int64_t>(request.spec.block_hashes.size());
  if (index < source_blocks) return pool_->find_cached(request.spec.block_hashes[static_cast<std::size_t>(index)]);
  if (request.private_blocks_owner_ != this) return -1;
  const auto i = static_cast<std::size_t>(index - source_blocks);
  if (i >= request.private_blocks_.size()) return -1;
  const std::int32_t b = request.private_blocks_[i];
  return b >= 0 && pool_->holds(b, block_hash(request.spec, index)) ? b : -1;
}

std::int64_t KvCacheManager::cached_prefix_tokens(const RequestSpec& spec) const {
  if (!pool_ || spec.prompt_tokens < 1) return 0;
  const std::int64_t max_blocks =
      std::min((spec.prompt_tokens - 1) / block_size_, static_cast<std::int64_t>(spec.block_hashes.size()));
  std::int64_t j = 0;
  while (j < max_blocks && pool_->find_cached(spec.block_hashes[static_cast<std::size_t>(j)]) >= 0) ++j;
  if (!tiers_) return j * block_size_;
  double tier_blocks = 0;  // weighted
  constexpr std::int64_t kAhead = 4;  // as in match_prefix
  for (std::int64_t k = j; k < max_blocks; ++k) {
    if (k + kAhead < max_blocks) tiers_->prefetch(spec.block_hashes[static_cast<std::size_t>(k + kAhead)]);
    const KvTiers::Tier t = tiers_->peek(spec.block_hashes[static_cast<std::size_t>(k)]);
    if (t == KvTiers::kNone) break;
    tier_blocks += tier_router_weight_[static_cast<std::size_t>(t)];
  }
  return j * block_size_ + std::llround(tier_blocks * static_cast<double>(block_size_));
}

void KvCacheManager::add_tiers(std::shared_ptr<KvTiers> tiers, const std::array<double, 2>& router_weight) {
  SS_ASSERT(pool_ != nullptr, "KV tiers need prefix caching");
  tiers_ = std::move(tiers);
  tier_router_weight_ = router_weight;
  pool_->set_eviction_log(&evicted_);
}

void KvCacheManager::store_evictions() {
  constexpr std::size_t kAhead = 8;  // overlap the index's cache misses, as match_prefix does
  for (std::size_t i = 0; i < evicted_.size(); ++i) {
    if (i + kAhead < evicted_.size()) tiers_->prefetch(evicted_[i + kAhead]);
    stored_blocks_ += tiers_->store(evicted_[i]) ? 1 : 0;
  }
  evicted_.clear();
}

void KvCacheManager::register_loaded_blocks(RequestState& request, std::int64_t loaded_blocks) {
  const std::int64_t last = whole_blocks(request.num_computed_tokens);
  if (loaded_blocks > 0) cache_blocks(request, last - loaded_blocks, last, true, false);
}

}  // namespace servesim
