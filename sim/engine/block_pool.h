#pragma once
// The KV blocks of one replica when prefix caching is on (vLLM v1's BlockPool and
// FreeKVCacheBlockQueue, docs/prefix-caching.md):
//   - every block has a reference count: the requests whose block tables hold it;
//   - a block may hold a content hash (a chained hash of the prefix up to its last token),
//     registered only once the block is full and computed; a hash names at most one block;
//   - blocks with no reference wait in one free queue in least-recently-freed order. A free
//     block keeps its hash, so it can still be hit, until it is popped for reuse: that is
//     the eviction, and it takes the head of the queue, the block freed longest ago.
// The free queue is a ring of block ids in the order they were freed. A hit that takes a
// free block out of the middle (touch) only marks the block as out of the queue; its entry
// goes stale and is skipped when it reaches the head, and the ring is compacted when stale
// entries outnumber live ones. Every operation is O(1) amortised.
// Why a ring and not a linked list threaded through the blocks (vLLM's layout): the head of
// the free queue is the block freed longest ago, which soon is anywhere in the pool, and
// with a list each allocation had to read that block's record to find the next head: a
// chain of dependent cache misses, one per block of every prompt (docs/performance.md).
// The ring names the next heads in consecutive slots, so their records are prefetched and
// the misses of a prompt's allocations overlap.
// A block's count, queue position and hash sit in one record.
// Blocks without a hash ("plain" blocks: most of any prompt's blocks, and every block of a
// decode) cannot be hit, so they are never shared and never taken out of the middle of the
// queue: a plain block is held by one request or waits in the queue, and neither its
// allocation nor a release_plain() reads or writes its record, which was a cache miss per
// block of every prompt (docs/performance.md). A plain block's record keeps only
// has_hash = 0 up to date; cache() and cache_private() set the rest when it gets a hash.
// Free plain blocks are interchangeable: what the queue must keep of them is how many wait
// between its hashed blocks, since that decides when each hashed block is evicted, not
// which they are. So the ring holds a run of plain blocks freed one after another as one
// entry, its count (kPlainEntry set), and their ids wait on a stack (plain_ids_): an
// allocation that reaches a run takes the ids freed last. Every hashed block is evicted
// at the same allocation as in a queue of single blocks; only the ids a request gets for
// its plain blocks differ, and nothing outside the pool reads them but to give them back
// (tests/engine/block_pool_model_test.cpp compares with a list-based queue up to such a
// relabelling). With a queue of single entries the ring went round every block of the
// pool, which made each replica's ring (4 bytes a block) cold by the time it came back to
// it; a run entry and the top of the stack stay in cache.
// The queue starts as every block, plain, and freed blocks join its tail, so the
// never-used blocks are always its head: a run ahead of the ring (head_run_), which
// allocation takes first. Its ids, like every run's, are the stack's while it holds any,
// and then the never-used ids in order (take_plain_id): a replica reuses the plain blocks
// it freed last rather than reaching for blocks it never touched, so only as many ids
// are ever used as were held at once. Records start as all-zero bytes (a plain block's),
// in memory committed only as it is first written (zeroed_array.h): allocating a plain
// block writes nothing either, and a pool of many replicas' worth of blocks costs memory
// only for the records of blocks that got a hash.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "sim/core/zeroed_array.h"
#include "sim/engine/block_hash_index.h"

namespace servesim {

class BlockPool {
 public:
  // The most blocks one pool holds (2^30: 16G tokens at 16 tokens per block).
  static constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 30;
  // All blocks start free, in id order. REQUIRES: 0 <= num_blocks <= kMaxBlocks.
  explicit BlockPool(std::int64_t num_blocks);

  std::int64_t num_blocks() const { return num_blocks_; }
  // Blocks no request holds (cached or not): what an allocation may take.
  std::int64_t num_free() const { return num_free_; }
  // Blocks currently holding a hash (held or free).
  std::int64_t num_cached() const { return num_cached_; }
  // Cached blocks reused for other content since the start.
  std::int64_t evictions() const { return evictions_; }

  // The block holding `hash`, or -1.
  std::int32_t find_cached(std::uint64_t hash) const;
  // Takes one more reference on `block` (a prefix hit); a free block leaves the queue.
  void touch(std::int32_t block);
  // Takes the head of the free queue with one reference, evicting its hash if it has one.
  // REQUIRES: num_free() > 0.
  std::int32_t allocate();
  // Drops one reference; at zero the block joins the tail of the free queue (it is the
  // most recently freed, so evicted last). REQUIRES: the block is held.
  void release(std::int32_t block);
  // release() of a block the caller knows holds no hash (so it is its only holder), without
  // reading its record. REQUIRES: the block is held and has no hash.
  void release_plain(std::int32_t block) { push_tail_plain(block); }
  // release_plain of blocks[n-1], ..., blocks[0], in that order (a block table freed from
  // its tail), with one room check.
  void release_plain_reversed(const std::int32_t* blocks, std::size_t n);
  // `n` allocate()s, appended to `out` in order. REQUIRES: num_free() >= n.
  void allocate_into(std::vector<std::int32_t>& out, std::int64_t n);
  // Registers held `block` as holding `hash`. Does nothing, and returns false, when the
  // hash is already registered (another block computed the same content first: block
  // tables stay append-only, so the duplicate is not merged) or the block has a hash.
  bool cache(std::int32_t block, std::uint64_t hash);
  // Registers held `block` as holding a hash only its own request can ever look up (a
  // request's private hash, kv_cache_manager.h). Such blocks are cached, evicted and
  // counted like the others but left out of the hash index: the request remembers which
  // block holds each of its private hashes and asks holds(), which saves an index insert,
  // lookup and erasure (a cache miss each) per block of every unshared prompt. Returns
  // false when the block already has a hash.
  bool cache_private(std::int32_t block, std::uint64_t hash);
  // Whether `block` still holds `hash` (it was registered with it and not evicted since).
  bool holds(std::int32_t block, std::uint64_t hash) const {
    const Block& k = at(block);
    return k.has_hash && k.hash == hash;
  }

  // From now on the hash of every block with a source's hash (indexed, not private) that
  // an allocation evicts is appended to `log` (the KV tiers store them); nullptr: none.
  void set_eviction_log(std::vector<std::uint64_t>* log) { eviction_log_ = log; }

  // Starts loading `block`'s record (a hint for loops over a block table).
  void prefetch(std::int32_t block) const { __builtin_prefetch(&at(block), 1); }

  // REQUIRES: the block is held (a plain block's record does not follow its count).
  std::int32_t ref_count(std::int32_t block) const { return at(block).has_hash ? static_cast<std::int32_t>(at(block).ref) : 1; }
  // Times the free-queue ring dropped its stale entries (tests check the path ran).
  std::int64_t ring_compactions() const { return compactions_; }
  bool is_cached(std::int32_t block) const { return at(block).has_hash; }

 private:
  // Appends `block` (hashed: its record notes the entry) or a plain block (no record).
  void push_tail(std::int32_t block);
  void push_tail_plain(std::int32_t block);
  // n more plain blocks at the tail (their ids pushed already): the tail run grows, or a
  // new run starts.
  void push_plain_run(std::uint32_t n);
  // Adds n plain blocks to `entry` if it is a run with room for them; false otherwise.
  static bool join_run(std::uint32_t& entry, std::uint32_t n) {
    if (!(entry & kPlainEntry) || (entry & ~kPlainEntry) > kMostRun - n) return false;
    entry += n;
    return true;
  }
  void make_room_at_tail();
  std::uint32_t pop_head();  // the head's live entry (kPlainEntry may be set)
  void compact();
  void prefetch_head() const;

  // 16 bytes, four to a cache line: a long run touches every block of every replica in
  // turn, so the records' size decides how many replicas' records fit in the caches.
  // All-zero bytes are a plain block's record (ZeroedArray).
  struct Block {
    std::uint64_t hash = 0;
    // Position of its live free-queue entry, modulo 2^32: positions in the ring span less
    // than 2^32 (the ring holds under 4 x kMaxBlocks entries), so it still tells a live
    // entry from the block's stale ones.
    std::uint32_t queue_pos = 0;
    std::uint32_t ref : 29 = 0;  // holders are running requests: far below 2^29
    std::uint32_t queued : 1 = 0;
    std::uint32_t has_hash : 1 = 0;
    std::uint32_t indexed : 1 = 0;  // has_hash and in index_ (not private)
  };
  static_assert(sizeof(Block) == 16);
  bool is_live_entry(const Block& k, std::uint64_t position) const {
    return k.queued && k.queue_pos == static_cast<std::uint32_t>(position);
  }
  Block& at(std::int32_t b) { return blocks_[static_cast<std::size_t>(b)]; }
  const Block& at(std::int32_t b) const { return blocks_[static_cast<std::size_t>(b)]; }

  std::int64_t num_blocks_;
  // The id for a plain block taken from any run: the top of the stack, else the lowest
  // never-used one. The stack and the never-used ids together hold head_run_ plus the
  // runs' counts of ids.
  std::int32_t take_plain_id() {
    if (plain_ids_.empty()) return next_fresh_++;
    const std::int32_t b = plain_ids_.back();
    plain_ids_.pop_back();
    return b;
  }
  // `n` take_plain_id()s into out[0], ..., out[n - 1]: the stack's top ids, then fresh ones.
  void take_plain_ids(std::int32_t* out, std::int64_t n) {
    const auto from_stack = static_cast<std::size_t>(std::min<std::int64_t>(n, static_cast<std::int64_t>(plain_ids_.size())));
    const auto top = plain_ids_.end();
    std::reverse_copy(top - static_cast<std::ptrdiff_t>(from_stack), top, out);
    plain_ids_.resize(plain_ids_.size() - from_stack);
    for (auto k = static_cast<std::int64_t>(from_stack); k < n; ++k) out[k] = next_fresh_++;
  }
  std::int32_t next_fresh_ = 0;  // blocks [next_fresh_, num_blocks_) were never used
  std::int64_t head_run_;        // plain blocks at the head of the queue, ahead of the ring
  ZeroedArray<Block> blocks_;    // every block's record
  // The free queue after the never-used blocks: positions [queue_head_, queue_tail_), the
  // entry at position p in ring_[p & ring_mask_]. Positions only grow (2^64 never wraps);
  // a block keeps its live entry's position modulo 2^32. An entry is the id of a block that
  // had a hash when it was freed, or kPlainEntry plus a count (1 to kMostRun) of plain
  // blocks freed one after another: always live, since only a hit takes a block out of the
  // middle of the queue, and no record is read.
  static constexpr std::uint32_t kPlainEntry = 1u << 31;
  static constexpr std::uint32_t kMostRun = kPlainEntry - 1;
  std::vector<std::uint32_t> ring_;
  // The ids of the free plain blocks the runs count, freed last on top.
  std::vector<std::int32_t> plain_ids_;
  std::uint64_t ring_mask_ = 0;
  std::uint64_t queue_head_ = 0, queue_tail_ = 0;
  std::int64_t stale_entries_ = 0;  // entries of blocks taken out by touch()
  std::int64_t compactions_ = 0;
  std::int64_t num_free_ = 0;
  std::int64_t evictions_ = 0;
  std::int64_t num_cached_ = 0;
  BlockHashIndex index_;  // hash -> block, for the blocks with has_hash set
  std::vector<std::uint64_t>* eviction_log_ = nullptr;  // set_eviction_log
};

}  // namespace servesim
