// The two rules every policy applies when it sizes a chunk or admits a waiting request:
// the per-request chunk cap, and the KV admission rule (watermark or full reservation).
#include <algorithm>

#include "sim/engine/lazy_decodes.h"
#include "sim/engine/scheduler.h"

namespace servesim::sched {

std::int64_t chunk_tokens(const SchedulerState& s, const RequestState& r, std::int64_t budget) {
  std::int64_t n = std::min(r.remaining(), budget);
  if (s.config.prefill_chunk_tokens > 0) n = std::min(n, s.config.prefill_chunk_tokens);
  return n;
}

namespace {

// Blocks the running requests will still take as they grow to their longest.
std::int64_t growth_blocks(const SchedulerState& s) {
  std::int64_t blocks = 0;
  for (const RequestState* r : s.running) {
    const std::int64_t held = s.lazy ? s.lazy->held_blocks(*r) : r->num_blocks();  // a lazy decode's lags
    blocks += std::max<std::int64_t>(0, s.kv.blocks_for(r->max_kv_tokens()) - held);
  }
  return blocks;
}

}  // namespace

bool admission_allows(const SchedulerState& s, const RequestState& r, std::int64_t n) {
  // An idle replica always admits what fits at all (submit rejected what never can), so
  // neither rule can leave work waiting forever.
  if (s.running.empty()) return true;
  const std::int64_t free = s.kv.free_blocks();
  if (s.config.kv_admission == KvAdmission::reserve_full) {
    // TensorRT-LLM's GUARANTEED_NO_EVICT: the whole sequence must fit next to what the
    // running ones will still grow into, so no one is ever preempted.
    const std::int64_t need = s.kv.blocks_for(r.max_kv_tokens()) - r.num_blocks();
    if (need > free - growth_blocks(s)) return false;
  }
  if (s.config.watermark > 0) {
    // vLLM v0 BlockSpaceManager.can_allocate: free - required >= watermark blocks.
    const auto watermark_blocks =
        static_cast<std::int64_t>(s.config.watermark * static_cast<double>(s.kv.total_blocks()));
    const std::int64_t need = s.kv.blocks_for(r.num_computed_tokens + n) - r.num_blocks();
    if (free - need < watermark_blocks) return false;
  }
  return true;
}

}  // namespace servesim::sched
