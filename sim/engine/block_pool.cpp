#include "sim/engine/block_pool.h"

#include "sim/core/assert.h"

namespace servesim {

BlockPool::BlockPool(std::int64_t num_blocks) : num_blocks_(num_blocks), num_free_(num_blocks) {
  SS_ASSERT(num_blocks >= 0 && num_blocks < (std::int64_t{1} << 31) - 2, "block pool size");
  blocks_.resize(2);
  at(kHead).next = kTail;
  at(kTail).prev = kHead;
}

void BlockPool::unlink(std::int32_t b) {
  Block& k = at(b);
  at(k.prev).next = k.next;
  at(k.next).prev = k.prev;
  k.prev = k.next = kUnlinked;
  --num_free_;
}

void BlockPool::push_tail(std::int32_t b) {
  Block& k = at(b);
  const std::int32_t last = at(kTail).prev;
  k.prev = last;
  k.next = kTail;
  at(last).next = b;
  at(kTail).prev = b;
  ++num_free_;
}

std::int32_t BlockPool::find_cached(std::uint64_t hash) const { return index_.find(hash); }

void BlockPool::touch(std::int32_t b) {
  Block& k = at(b);
  if (k.ref == 0) unlink(b);
  ++k.ref;
}

std::int32_t BlockPool::allocate() {
  SS_ASSERT(num_free_ > 0, "allocation from an empty block pool");
  if (next_fresh_ < num_blocks_) {  // the head of the queue is the lowest never-used block
    const std::int32_t b = next_fresh_++;
    blocks_.emplace_back();
    at(b).ref = 1;
    --num_free_;
    return b;
  }
  const std::int32_t b = at(kHead).next;
  unlink(b);
  Block& k = at(b);
  if (k.has_hash) {
    if (k.indexed) index_.erase(k.hash);
    k.has_hash = k.indexed = false;
    --num_cached_;
    ++evictions_;
  }
  k.ref = 1;
  return b;
}

void BlockPool::release(std::int32_t b) {
  Block& k = at(b);
  SS_ASSERT(k.ref > 0, "release of a block nobody holds");
  if (--k.ref == 0) push_tail(b);
}

bool BlockPool::cache(std::int32_t b, std::uint64_t hash) {
  Block& k = at(b);
  SS_ASSERT(k.ref > 0, "only a held block is registered in the prefix cache");
  if (k.has_hash) return false;
  if (index_.find(hash) >= 0) return false;
  k.hash = hash;
  k.has_hash = k.indexed = true;
  ++num_cached_;
  index_.insert(hash, b);
  return true;
}

bool BlockPool::cache_private(std::int32_t b, std::uint64_t hash) {
  Block& k = at(b);
  SS_ASSERT(k.ref > 0, "only a held block is registered in the prefix cache");
  if (k.has_hash) return false;
  k.hash = hash;
  k.has_hash = true;
  ++num_cached_;
  return true;
}

}  // namespace servesim
