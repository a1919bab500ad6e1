#pragma once
// The paged KV cache of one replica: a fixed number of blocks of `block_size` tokens.
// Allocation is check-then-act: a request that cannot get its blocks leaves the state
// untouched, and the scheduler decides whether to preempt someone (vLLM's allocate_slots).
//
// With prefix caching (vLLM's automatic prefix caching, docs/prefix-caching.md) blocks have
// identities: a full, computed block is registered under the hash of its content, chained
// over the prefix (RequestSpec::block_hashes), and stays reusable after its request leaves
// until it is evicted, least recently freed first. A request admitted from the waiting
// queue first takes the longest run of cached blocks that starts its token sequence, and
// computes only the rest. Without prefix caching, blocks are only counted.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/engine/block_pool.h"
#include "sim/engine/kv_tiers.h"
#include "sim/engine/request_state.h"

namespace servesim {

class KvCacheManager {
 public:
  // REQUIRES: num_blocks >= 0, block_size >= 1.
  KvCacheManager(std::int64_t num_blocks, int block_size, bool prefix_cache = false);

  // Blocks needed to hold `tokens` tokens.
  std::int64_t blocks_for(std::int64_t tokens) const { return whole_blocks(tokens + block_size_ - 1); }
  // Gives `request` enough blocks for its computed tokens plus `new_tokens`. Returns false
  // (and changes nothing) when too few blocks are free.
  bool allocate(RequestState& request, std::int64_t new_tokens);
  // Blocks for requests that start them without being visited (lazy decodes at a block
  // boundary, sim/engine/lazy_decodes.h): taken now, by the same allocations (and so the
  // same evictions) as `blocks` append_blocks calls, and handed to the requests later by
  // assign_blocks. Which request gets which of them cannot matter: a block taken from the
  // free queue holds no hash (its eviction dropped it) and has one holder, so such blocks
  // are interchangeable until a request's table registers a hash on one, which it does
  // only once it holds it. REQUIRES: blocks <= free_blocks().
  void allocate_unassigned(std::int64_t blocks);
  // Hands `blocks` of the unassigned blocks to `request` (its table grows by them).
  // REQUIRES: blocks <= unassigned_blocks().
  void assign_blocks(RequestState& request, std::int64_t blocks);
  // Blocks allocated and not yet assigned: held, by requests whose num_blocks lags.
  std::int64_t unassigned_blocks() const { return unassigned_; }
  // Returns every block of the request to the free pool. Cached blocks go to the tail of
  // the eviction order, the request's last block first, so a chain's tail is evicted
  // before its head. A request not finished (preempted, or matched but not admitted)
  // keeps a note of its private blocks, to find them when it comes back.
  void free(RequestState& request);

  std::int64_t total_blocks() const { return total_blocks_; }
  // Blocks no request holds, cached ones included (they are evicted on demand).
  std::int64_t free_blocks() const { return free_blocks_; }
  std::int64_t used_blocks() const { return total_blocks_ - free_blocks_; }
  int block_size() const { return block_size_; }
  // Fraction of blocks in use, 0..1.
  double usage() const { return total_blocks_ ? double(used_blocks()) / double(total_blocks_) : 0.0; }

  // --- prefix caching (every call below is a no-op or 0 without it) ---
  bool prefix_caching() const { return pool_ != nullptr; }
  // Start of an admission from the waiting queue: takes the request's cached prefix, at
  // most num_tokens() - 1 tokens so that at least one token is computed (vLLM's rule),
  // and sets num_computed_tokens to it. The first admission also records it as
  // cached_prompt_tokens. Returns the tokens hit.
  // REQUIRES: the request holds no blocks and has computed nothing.
  std::int64_t match_prefix(RequestState& request);
  // End of a scheduling pass: a request whose prefix was matched but which was not
  // admitted (it is still waiting) gives its blocks back and its progress returns to 0,
  // so waiting requests never hold blocks between steps.
  void drop_unadmitted_matches();
  // Registers every full block of `request` completed since it had `computed_before`
  // computed tokens. Call at the end of the step that computed them (blocks being
  // computed are not hits yet).
  void cache_computed_blocks(RequestState& request, std::int64_t computed_before);
  // (Private hashes, which only the request itself can look up, are registered only once
  // it has freed its blocks unfinished here; until then only where they start is noted:
  // cache_blocks, remember_private_blocks.)
  // The same in two halves, as the replica calls it. At the start of a step that computes
  // `new_tokens` more of the request: the blocks it will fill that have private hashes.
  // Only the request itself can look those up, in a later scheduling pass, and nothing is
  // allocated or evicted on a replica while its step runs, so registering them early
  // changes no result; their records are still in cache from the allocation, where a
  // step later (after every other replica's step) they are not. At the step's end: the
  // blocks with a source's hash, which others may hit. Inline: called for every chunk.
  void cache_private_blocks_at_step_start(RequestState& request, std::int64_t new_tokens) {
    if (!pool_) return;
    const std::int64_t first = whole_blocks(request.num_computed_tokens);
    const std::int64_t last = whole_blocks(request.num_computed_tokens + new_tokens);
    if (last > first) cache_blocks(request, first, last, false, true);  // most decodes fill none
  }
  void cache_source_blocks_at_step_end(RequestState& request, std::int64_t computed_before) {
    if (!pool_) return;
    const std::int64_t first = whole_blocks(computed_before);
    const std::int64_t last = std::min(whole_blocks(request.num_computed_tokens),
                                       static_cast<std::int64_t>(request.spec.block_hashes.size()));
    if (last > first) cache_blocks(request, first, last, true, false);
  }

  // A lazy decode's catch-up (LazyDecodes::sync) over `started_tokens` one-token steps
  // whose starts it has not seen: notes, as cache_blocks does at the start of the step
  // that completes a block past the source's hashes, where deferred private hashes begin.
  void note_pending_private_blocks(RequestState& request, std::int64_t started_tokens) {
    if (!pool_ || request.private_blocks_owner_ == this || request.private_pending_from_ >= 0) return;
    const std::int64_t block = std::max(whole_blocks(request.num_computed_tokens),
                                        static_cast<std::int64_t>(request.spec.block_hashes.size()));
    if ((block + 1) * block_size_ <= request.num_computed_tokens + started_tokens) request.private_pending_from_ = block;
  }

  // --- swap (the host swap space itself is the replica's SwapSpace) ---
  // A preempted request whose KV went to `host_blocks` blocks of host swap space.
  void note_swapped_out(RequestState& request, std::int64_t host_blocks) { request.swapped_blocks_ = host_blocks; }
  // A swapped-out request scheduled again: its host blocks, which it no longer holds.
  std::int64_t take_swapped_in(RequestState& request) {
    const std::int64_t blocks = request.swapped_blocks_;
    request.swapped_blocks_ = 0;
    return blocks;
  }

  // KV tiers below HBM (kv_tiers.h), with these capacities. REQUIRES: prefix caching.
  // Afterwards every source-hashed block HBM evicts is stored in them, and match_prefix
  // continues a prefix into them: the blocks found there are counted in
  // tier_load_blocks and taken as computed, to be loaded by the step that admits the
  // request (Replica::prepare_step, which calls register_loaded_blocks).
  // `router_weight`: what one token found in each tier is worth to a router against one in
  // HBM (cached_prefix_tokens), from the cost to bring it back.
  // `tiers` may be shared with other replicas' caches (a pool-wide store).
  void add_tiers(std::shared_ptr<KvTiers> tiers, const std::array<double, 2>& router_weight);
  void set_tier_router_weight(const std::array<double, 2>& router_weight) { tier_router_weight_ = router_weight; }
  bool has_tiers() const { return tiers_ != nullptr; }
  const KvTiers* tiers() const { return tiers_.get(); }
  // Blocks written to the tiers since the last call (the store traffic over the host link).
  std::int64_t take_stored_blocks() {
    const std::int64_t n = stored_blocks_;
    stored_blocks_ = 0;
    return n;
  }
  // The blocks of `request` loaded from the tiers (its tier_load_blocks, which end its
  // computed prefix) are in HBM now: they get their hashes there, hits for others.
  void register_loaded_blocks(RequestState& request, std::int64_t loaded_blocks);
  // The blocks of `request` its admission found in each tier ({CPU, disk}), for the step
  // that loads them; the request holds none to load afterwards.
  std::array<std::int64_t, 2> take_tier_loads(RequestState& request) {
    const std::array<std::int64_t, 2> blocks{request.tier_load_blocks_[0], request.tier_load_blocks_[1]};
    request.tier_load_blocks_[0] = request.tier_load_blocks_[1] = 0;
    return blocks;
  }

  // Tokens of `spec`'s prompt this replica could serve from its cache now (a router's
  // question; changes nothing). Capped at prompt_tokens - 1 like a real admission. With
  // KV tiers the prefix goes on into them, each tier's tokens weighted by add_tiers'
  // router_weight (rounded to a token).
  std::int64_t cached_prefix_tokens(const RequestSpec& spec) const;
  // Blocks held summed over requests: used_blocks() counts a shared block once, this
  // counts it once per holder. Equal to used_blocks() without prefix caching.
  std::int64_t block_refs() const { return block_refs_; }
  std::int64_t cached_blocks() const { return pool_ ? pool_->num_cached() : 0; }
  std::int64_t evictions() const { return pool_ ? pool_->evictions() : 0; }

  // The content hash of block `index` of a request: the source's hash where it gave one,
  // else a hash private to the request (its own recompute after preemption may hit it,
  // nothing else can).
  static std::uint64_t block_hash(const RequestSpec& spec, std::int64_t index);

 private:
  // The block holding the hash of block `index` of `request`, or -1: the hash index for a
  // source's hash, the request's own record for a private one (request_state.h).
  std::int32_t find_cached(const RequestState& request, std::int64_t index) const;
  // Writes the request's private-block table (request_state.h) from its block_ids, where
  // it has none for this cache yet: free() does so for an unfinished request, so that its
  // recompute can find its blocks.
  void remember_private_blocks(RequestState& request);
  // Gives `request` `blocks` more blocks. REQUIRES: blocks <= free_blocks().
  void append_blocks(RequestState& request, std::int64_t blocks);
  // Takes `blocks` free blocks, their ids (with prefix caching) appended to `ids`.
  void take_blocks(std::vector<std::int32_t>& ids, std::int64_t blocks);
  // Registers blocks [first, last) of the request's table: those with a source's hash
  // (j < spec.block_hashes.size()) if `source`, the others if `private_hashes`.
  void cache_blocks(RequestState& request, std::int64_t first, std::int64_t last, bool source, bool private_hashes);
  // floor(tokens / block_size) for tokens >= 0: a shift for the power-of-two sizes the
  // scenario allows, since the step loop asks for every running request.
  std::int64_t whole_blocks(std::int64_t tokens) const {
    return block_shift_ >= 0 ? tokens >> block_shift_ : tokens / block_size_;
  }

  std::int64_t total_blocks_;
  std::int64_t free_blocks_;
  int block_size_;
  int block_shift_ = -1;  // log2(block_size_) when it is a power of two
  std::int64_t block_refs_ = 0;
  std::int64_t unassigned_ = 0;           // allocate_unassigned's blocks not yet assigned
  std::vector<std::int32_t> unassigned_ids_;  // their ids, with prefix caching (last taken on top)
  std::unique_ptr<BlockPool> pool_;       // null without prefix caching
  std::vector<RequestState*> matched_;    // match_prefix calls of the current pass
  // Hands the hashes HBM evicted since the last call to the tiers.
  void store_evictions();
  std::shared_ptr<KvTiers> tiers_;        // null without KV tiers; shared with a pool-wide store
  std::array<double, 2> tier_router_weight_{};
  std::vector<std::uint64_t> evicted_;    // source hashes HBM evicted, not yet stored
  std::int64_t stored_blocks_ = 0;        // written to the tiers since take_stored_blocks
};

}  // namespace servesim
