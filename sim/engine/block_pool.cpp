#include "sim/engine/block_pool.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace servesim {

BlockPool::BlockPool(std::int64_t num_blocks)
    : num_blocks_(num_blocks),
      head_run_(num_blocks),
      // Address space for every record, but memory only for the pages written: the records
      // never move, which spares the copies and page faults of growing by doubling (9% of
      // a 1,024-replica run was the kernel mapping and unmapping them), and a plain block,
      // as every never-used one is, leaves its record unwritten.
      blocks_(static_cast<std::size_t>(num_blocks >= 0 && num_blocks <= kMaxBlocks ? num_blocks : 0)),
      num_free_(num_blocks) {
  SS_ASSERT(num_blocks >= 0 && num_blocks <= kMaxBlocks, "block pool size");
  ring_.assign(16, 0);
  ring_mask_ = 15;
}

void BlockPool::make_room_at_tail() {
  if (queue_tail_ - queue_head_ != ring_.size()) return;
  if (stale_entries_ > 0 && 2 * static_cast<std::uint64_t>(stale_entries_) >= ring_.size()) {
    compact();
  } else {  // double, keeping every entry at its position
    std::vector<std::uint32_t> bigger(2 * ring_.size());
    const std::uint64_t mask = bigger.size() - 1;
    for (std::uint64_t p = queue_head_; p != queue_tail_; ++p) bigger[p & mask] = ring_[p & ring_mask_];
    ring_.swap(bigger);
    ring_mask_ = mask;
  }
}

void BlockPool::push_tail(std::int32_t b) {
  Block& k = at(b);
  if (!k.has_hash) return push_tail_plain(b);
  make_room_at_tail();
  ring_[queue_tail_ & ring_mask_] = static_cast<std::uint32_t>(b);
  k.queued = 1;
  k.queue_pos = static_cast<std::uint32_t>(queue_tail_++);
  ++num_free_;
}

void BlockPool::push_plain_run(std::uint32_t n) {
  num_free_ += n;
  // The tail entry a run: the blocks join it.
  if (queue_tail_ != queue_head_ && join_run(ring_[(queue_tail_ - 1) & ring_mask_], n)) return;
  make_room_at_tail();
  ring_[queue_tail_++ & ring_mask_] = kPlainEntry | n;
}

void BlockPool::push_tail_plain(std::int32_t b) {
  plain_ids_.push_back(b);
  push_plain_run(1);
}

void BlockPool::release_plain_reversed(const std::int32_t* blocks, std::size_t n) {
  if (n == 0) return;
  // Pushed last first, as n release_plain() calls would: blocks[0] ends on top. One
  // resize, not a push_back per block (a request frees ~85 blocks at the light load).
  const std::size_t at = plain_ids_.size();
  plain_ids_.resize(at + n);
  std::reverse_copy(blocks, blocks + n, plain_ids_.begin() + static_cast<std::ptrdiff_t>(at));
  push_plain_run(static_cast<std::uint32_t>(n));
}

void BlockPool::allocate_into(std::vector<std::int32_t>& out, std::int64_t n) {
  SS_ASSERT(n >= 0 && n <= num_free_, "allocation from an empty block pool");
  if (n == 1) {  // most calls (a decode's new block): the loops below for one block are allocate()
    out.push_back(allocate());
    return;
  }
  const std::size_t first = out.size();
  out.resize(first + static_cast<std::size_t>(n));
  std::int32_t* to = out.data() + first;
  std::int64_t i = 0;
  // The plain blocks ahead of the ring first: plain, so their records stay as they are.
  const std::int64_t ahead = std::min(n, head_run_);
  take_plain_ids(to, ahead);
  i = ahead;
  head_run_ -= ahead;
  num_free_ -= ahead;
  // The usual case inline: runs of plain blocks at the head (no record, no eviction), their
  // ids from the top of the stack.
  while (i < n && queue_head_ != queue_tail_) {
    std::uint32_t& entry = ring_[queue_head_ & ring_mask_];
    if (!(entry & kPlainEntry)) break;
    const std::uint32_t run = entry & ~kPlainEntry;
    const auto take = static_cast<std::uint32_t>(std::min<std::int64_t>(run, n - i));
    take_plain_ids(to + i, take);
    i += take;
    num_free_ -= take;
    if (take == run) {
      ++queue_head_;
    } else {
      entry -= take;
    }
  }
  for (; i < n; ++i) to[i] = allocate();  // hashed or stale entries
}

// Drops the stale entries; the live ones keep their order (and get new positions), and
// runs of plain blocks that come to touch are joined.
void BlockPool::compact() {
  std::uint64_t out = queue_head_;
  for (std::uint64_t p = queue_head_; p != queue_tail_; ++p) {
    const std::uint32_t entry = ring_[p & ring_mask_];
    if (entry & kPlainEntry) {
      if (out != queue_head_ && join_run(ring_[(out - 1) & ring_mask_], entry & ~kPlainEntry)) continue;
      ring_[out++ & ring_mask_] = entry;
      continue;
    }
    const auto b = static_cast<std::int32_t>(entry);
    if (!is_live_entry(at(b), p)) continue;
    ring_[out & ring_mask_] = entry;
    at(b).queue_pos = static_cast<std::uint32_t>(out++);
  }
  queue_tail_ = out;
  stale_entries_ = 0;
  ++compactions_;
}

void BlockPool::prefetch_head() const {
  // The record of an allocation a few ahead: a prompt takes its blocks in a burst, so the
  // cache misses of the coming allocations overlap instead of following one another.
  constexpr std::uint64_t kAhead = 8;
  if (queue_tail_ - queue_head_ <= kAhead) return;
  const std::uint32_t entry = ring_[(queue_head_ + kAhead) & ring_mask_];
  if (!(entry & kPlainEntry)) prefetch(static_cast<std::int32_t>(entry));
}

std::uint32_t BlockPool::pop_head() {
  for (;;) {
    SS_ASSERT(queue_head_ != queue_tail_, "free queue out of step with the free count");
    const std::uint64_t p = queue_head_;
    std::uint32_t& entry = ring_[p & ring_mask_];
    if (entry & kPlainEntry) {  // a run of plain blocks: the top of the stack, no record
      const std::int32_t b = take_plain_id();
      if (--entry == kPlainEntry) ++queue_head_;  // the run is spent
      --num_free_;
      return static_cast<std::uint32_t>(b) | kPlainEntry;
    }
    ++queue_head_;
    Block& k = at(static_cast<std::int32_t>(entry));
    if (!is_live_entry(k, p)) {  // taken out by a hit; its live entry (if any) is further on
      --stale_entries_;
      continue;
    }
    k.queued = 0;
    --num_free_;
    return entry;
  }
}

std::int32_t BlockPool::find_cached(std::uint64_t hash) const { return index_.find(hash); }

void BlockPool::touch(std::int32_t b) {
  Block& k = at(b);
  if (k.ref == 0) {  // leaves the free queue: its entry goes stale
    k.queued = 0;
    ++stale_entries_;
    --num_free_;
  }
  SS_ASSERT(k.ref < (1u << 29) - 1, "block reference count overflow");
  ++k.ref;
}

std::int32_t BlockPool::allocate() {
  SS_ASSERT(num_free_ > 0, "allocation from an empty block pool");
  if (head_run_ > 0) {  // the head of the queue is a plain block ahead of the ring
    --head_run_;
    --num_free_;
    return take_plain_id();  // plain: its record stays as it is
  }
  const std::uint32_t entry = pop_head();
  prefetch_head();
  const auto b = static_cast<std::int32_t>(entry & ~kPlainEntry);
  if (entry & kPlainEntry) return b;
  Block& k = at(b);
  if (k.has_hash) {  // the eviction
    if (k.indexed) {
      index_.erase(k.hash);
      if (eviction_log_) eviction_log_->push_back(k.hash);
    }
    k.has_hash = k.indexed = false;
    --num_cached_;
    ++evictions_;
  }
  return b;
}

void BlockPool::release(std::int32_t b) {
  Block& k = at(b);
  if (!k.has_hash) return push_tail_plain(b);  // its only holder
  SS_ASSERT(k.ref > 0, "release of a block nobody holds");
  if (--k.ref == 0) push_tail(b);
}

bool BlockPool::cache(std::int32_t b, std::uint64_t hash) {
  Block& k = at(b);
  if (k.has_hash) return false;
  if (index_.find(hash) >= 0) return false;
  k.ref = 1;  // a held block without a hash has one holder; its record did not follow it
  k.queued = 0;
  k.hash = hash;
  k.has_hash = k.indexed = true;
  ++num_cached_;
  index_.insert(hash, b);
  return true;
}

bool BlockPool::cache_private(std::int32_t b, std::uint64_t hash) {
  Block& k = at(b);
  if (k.has_hash) return false;
  k.ref = 1;  // as in cache()
  k.queued = 0;
  k.hash = hash;
  k.has_hash = true;
  ++num_cached_;
  return true;
}

}  // namespace servesim
