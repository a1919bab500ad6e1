#pragma once
// The paged KV cache of one replica: a fixed number of blocks of `block_size` tokens.
// Allocation is check-then-act: a request that cannot get its blocks leaves the state
// untouched, and the scheduler decides whether to preempt someone (vLLM's allocate_slots).
#include <cstdint>

#include "sim/engine/request_state.h"

namespace servesim {

class KvCacheManager {
 public:
  // REQUIRES: num_blocks >= 0, block_size >= 1.
  KvCacheManager(std::int64_t num_blocks, int block_size);

  // Blocks needed to hold `tokens` tokens.
  std::int64_t blocks_for(std::int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }
  // Gives `request` enough blocks for its computed tokens plus `new_tokens`. Returns false
  // (and changes nothing) when too few blocks are free.
  bool allocate(RequestState& request, std::int64_t new_tokens);
  // Returns every block of the request to the free pool.
  void free(RequestState& request);

  std::int64_t total_blocks() const { return total_blocks_; }
  std::int64_t free_blocks() const { return free_blocks_; }
  std::int64_t used_blocks() const { return total_blocks_ - free_blocks_; }
  int block_size() const { return block_size_; }
  // Fraction of blocks in use, 0..1.
  double usage() const { return total_blocks_ ? double(used_blocks()) / double(total_blocks_) : 0.0; }

 private:
  std::int64_t total_blocks_;
  std::int64_t free_blocks_;
  int block_size_;
};

}  // namespace servesim
