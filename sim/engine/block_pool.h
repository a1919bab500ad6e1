#pragma once
// The KV blocks of one replica when prefix caching is on (vLLM v1's BlockPool and
// FreeKVCacheBlockQueue, docs/prefix-caching.md):
//   - every block has a reference count: the requests whose block tables hold it;
//   - a block may hold a content hash (a chained hash of the prefix up to its last token),
//     registered only once the block is full and computed; a hash names at most one block;
//   - blocks with no reference wait in one free queue in least-recently-freed order. A free
//     block keeps its hash, so it can still be hit, until it is popped for reuse: that is
//     the eviction, and it takes the head of the queue, the block freed longest ago.
// The queue is a doubly linked list threaded through the blocks (sentinels at both ends),
// so a hit can take a block out of the middle in O(1). Every operation is O(1) expected.
// A block's count, links and hash sit in one record: an eviction touches one cache line of
// the pool (the blocks are visited in free-queue order, which soon is no order at all).
// Records are made on first use: the queue starts as the blocks in id order, and freed
// blocks join its tail, so the never-used blocks are always its head, in id order, and
// allocation takes them first. A pool of many replicas' worth of blocks costs nothing
// until they are used.
#include <climits>
#include <cstdint>
#include <vector>

#include "sim/engine/block_hash_index.h"

namespace servesim {

class BlockPool {
 public:
  // All blocks start free, in id order. REQUIRES: 0 <= num_blocks < 2^31 - 2.
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

  std::int32_t ref_count(std::int32_t block) const { return at(block).ref; }
  bool is_cached(std::int32_t block) const { return at(block).has_hash; }

 private:
  void unlink(std::int32_t block);
  void push_tail(std::int32_t block);

  static constexpr std::int32_t kHead = -2, kTail = -1, kUnlinked = INT32_MIN;
  struct Block {
    std::uint64_t hash = 0;
    std::int32_t ref = 0;
    std::int32_t prev = kUnlinked, next = kUnlinked;  // free-queue links of used blocks
    bool has_hash = false;
    bool indexed = false;  // has_hash and in index_ (not private)
  };
  // Records are stored at id + 2: the sentinels of the free list are ids -2 and -1.
  Block& at(std::int32_t b) { return blocks_[static_cast<std::size_t>(b + 2)]; }
  const Block& at(std::int32_t b) const { return blocks_[static_cast<std::size_t>(b + 2)]; }

  std::int64_t num_blocks_;
  std::int32_t next_fresh_ = 0;  // blocks [next_fresh_, num_blocks_) were never used
  std::vector<Block> blocks_;    // the sentinels, then blocks [0, next_fresh_)
  std::int64_t num_free_ = 0;
  std::int64_t evictions_ = 0;
  std::int64_t num_cached_ = 0;
  BlockHashIndex index_;  // hash -> block, for the blocks with has_hash set
};

}  // namespace servesim
