#pragma once
// Host memory that swapped-out KV blocks move to (vLLM's swap_space, per GPU), and the host
// link they move over. Only a count: which host pages hold which blocks does not change
// any timing.
#include <cmath>
#include <cstdint>

#include "sim/core/time.h"

#include "sim/core/assert.h"

namespace servesim {

class SwapSpace {
 public:
  SwapSpace() = default;
  // `kv_bytes_per_token`: what one KV token weighs per GPU; `host_link_bytes_per_s` per GPU.
  SwapSpace(std::int64_t capacity_blocks, double kv_bytes_per_token, double host_link_bytes_per_s)
      : capacity_blocks_(capacity_blocks),
        kv_bytes_per_token_(kv_bytes_per_token),
        host_link_bytes_per_s_(host_link_bytes_per_s) {}

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
  // Time to move `tokens` KV tokens either way over the host link (0 without a link).
  Tick transfer_ns(std::int64_t tokens) const {
    if (tokens <= 0 || host_link_bytes_per_s_ <= 0) return 0;
    return static_cast<Tick>(std::llround(static_cast<double>(tokens) * kv_bytes_per_token_ / host_link_bytes_per_s_ * 1e9));
  }

 private:
  std::int64_t capacity_blocks_ = 0;
  std::int64_t used_blocks_ = 0;
  double kv_bytes_per_token_ = 0;
  double host_link_bytes_per_s_ = 0;
};

}  // namespace servesim
