#pragma once
// Host memory that swapped-out KV blocks move to (vLLM's swap_space, per GPU). Only a
// count: which host pages hold which blocks does not change any timing.
#include <cstdint>

#include "sim/core/assert.h"

namespace servesim {

class SwapSpace {
 public:
  explicit SwapSpace(std::int64_t capacity_blocks = 0) : capacity_blocks_(capacity_blocks) {}

  // Reserves `blocks` host blocks; false (and nothing changes) if too few are free.
  bool take(std::int64_t blocks) {
    if (blocks > capacity_blocks_ - used_blocks_) return false;
    used_blocks_ += blocks;
    return true;
  }
  void give_back(std::int64_t blocks) {
    used_blocks_ -= blocks;
    SS_ASSERT(used_blocks_ >= 0, "more swap blocks returned than taken");
  }
  std::int64_t capacity_blocks() const { return capacity_blocks_; }
  std::int64_t used_blocks() const { return used_blocks_; }

 private:
  std::int64_t capacity_blocks_;
  std::int64_t used_blocks_ = 0;
};

}  // namespace servesim
