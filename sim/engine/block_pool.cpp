#include "sim/engine/block_pool.h"

#include "sim/core/assert.h"

namespace servesim {

BlockPool::BlockPool(std::int64_t num_blocks) {
  SS_ASSERT(num_blocks >= 0 && num_blocks < (std::int64_t{1} << 31) - 2, "block pool size");
  const auto n = static_cast<std::size_t>(num_blocks);
  ref_.assign(n, 0);
  hash_.assign(n, 0);
  has_hash_.assign(n, 0);
  prev_.assign(n + 2, -1);
  next_.assign(n + 2, -1);
  head_ = static_cast<std::int32_t>(n);
  tail_ = static_cast<std::int32_t>(n + 1);
  next_[static_cast<std::size_t>(head_)] = tail_;
  prev_[static_cast<std::size_t>(tail_)] = head_;
  for (std::int32_t b = 0; b < static_cast<std::int32_t>(n); ++b) push_tail(b);
  // A hash per block at most: reserving avoids rehashing in the middle of a run.
  by_hash_.reserve(n);
}

void BlockPool::unlink(std::int32_t b) {
  const auto i = static_cast<std::size_t>(b);
  next_[static_cast<std::size_t>(prev_[i])] = next_[i];
  prev_[static_cast<std::size_t>(next_[i])] = prev_[i];
  prev_[i] = next_[i] = -1;
  --num_free_;
}

void BlockPool::push_tail(std::int32_t b) {
  const auto i = static_cast<std::size_t>(b);
  const std::int32_t last = prev_[static_cast<std::size_t>(tail_)];
  prev_[i] = last;
  next_[i] = tail_;
  next_[static_cast<std::size_t>(last)] = b;
  prev_[static_cast<std::size_t>(tail_)] = b;
  ++num_free_;
}

std::int32_t BlockPool::find_cached(std::uint64_t hash) const {
  const auto it = by_hash_.find(hash);
  return it == by_hash_.end() ? -1 : it->second;
}

void BlockPool::touch(std::int32_t b) {
  auto& ref = ref_[static_cast<std::size_t>(b)];
  if (ref == 0) unlink(b);
  ++ref;
}

std::int32_t BlockPool::allocate() {
  SS_ASSERT(num_free_ > 0, "allocation from an empty block pool");
  const std::int32_t b = next_[static_cast<std::size_t>(head_)];
  unlink(b);
  const auto i = static_cast<std::size_t>(b);
  if (has_hash_[i]) {
    by_hash_.erase(hash_[i]);
    has_hash_[i] = 0;
    ++evictions_;
  }
  ref_[i] = 1;
  return b;
}

void BlockPool::release(std::int32_t b) {
  auto& ref = ref_[static_cast<std::size_t>(b)];
  SS_ASSERT(ref > 0, "release of a block nobody holds");
  if (--ref == 0) push_tail(b);
}

bool BlockPool::cache(std::int32_t b, std::uint64_t hash) {
  const auto i = static_cast<std::size_t>(b);
  SS_ASSERT(ref_[i] > 0, "only a held block is registered in the prefix cache");
  if (has_hash_[i]) return false;
  if (!by_hash_.emplace(hash, b).second) return false;
  hash_[i] = hash;
  has_hash_[i] = 1;
  return true;
}

}  // namespace servesim
