#include "sim/engine/kv_cache_manager.h"

#include "sim/core/assert.h"

namespace servesim {

KvCacheManager::KvCacheManager(std::int64_t num_blocks, int block_size)
    : total_blocks_(num_blocks), free_blocks_(num_blocks), block_size_(block_size) {
  SS_ASSERT(num_blocks >= 0 && block_size >= 1, "KV cache geometry");
}

bool KvCacheManager::allocate(RequestState& request, std::int64_t new_tokens) {
  const std::int64_t needed = blocks_for(request.num_computed_tokens + new_tokens);
  const std::int64_t extra = needed - request.num_blocks;
  if (extra <= 0) return true;
  if (extra > free_blocks_) return false;
  free_blocks_ -= extra;
  request.num_blocks = needed;
  return true;
}

void KvCacheManager::free(RequestState& request) {
  free_blocks_ += request.num_blocks;
  request.num_blocks = 0;
  SS_ASSERT(free_blocks_ <= total_blocks_, "more KV blocks freed than exist");
}

}  // namespace servesim
