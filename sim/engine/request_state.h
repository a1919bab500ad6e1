#pragma once
// A request inside one replica. Following vLLM v1, there are no prefill or decode phases:
// a request has `num_tokens()` known tokens (prompt plus outputs so far) of which
// `num_computed_tokens` are in the KV cache; every step computes some more of them.
// Prefill, chunked prefill, decode and recompute after preemption are the same arithmetic.
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/time.h"
#include "sim/engine/request_accounting.h"
#include "sim/workload/request.h"

namespace servesim {

enum class RequestStatus { waiting, running, finished };

// Aligned to a cache line so that the per-step fields below span as few lines as they can
// (malloc aligns to 16 bytes: a record could straddle one more line at every touch).
struct alignas(64) RequestState {
  // Fields every engine step reads or writes for each running request come first, next
  // to the spec's lengths, so that a step touches few cache lines per request: with
  // hundreds of sequences per step that is most of a step's time (docs/performance.md).
  RequestSpec spec;
  RequestStatus status = RequestStatus::waiting;
  int preemptions = 0;
  std::int64_t num_computed_tokens = 0;   // tokens whose KV is in the cache
  std::int64_t num_output_done = 0;       // output tokens emitted so far

 private:
  // The KV block table: what the replica's KvCacheManager (a friend) alone writes, and
  // everyone else reads through the accessors below, so that block bookkeeping has one
  // owner (as vLLM v1's KVCacheManager owns its req_to_blocks). The count sits with the
  // per-step fields; the rest of the table further down.
  friend class KvCacheManager;
  std::int64_t num_blocks_ = 0;  // KV blocks this request holds

 public:
  Tick first_scheduled_ns = -1;
  Tick first_token_ns = -1;
  Tick last_token_ns = -1;
  Tick preempted_at_ns = -1;            // start of a preemption not yet recovered; -1: none
  // Latency attribution and GPU-time shares (sim/engine/step_accounting.cpp).
  RequestAccounting acct;
  int pool_index = -1;
  int replica_index = -1;
  std::int64_t cached_prompt_tokens = 0;  // prompt tokens served by the prefix cache
  // Of those, the ones found in the KV tiers below HBM (kv_tiers.h: CPU, disk) and loaded
  // back; and the blocks of the admission being planned still to load, which the step
  // that computes the request prices (Replica::prepare_step) and sets back to 0.
  std::int64_t tier_hit_tokens[2] = {0, 0};

 private:
  // The rest of the block table (see num_blocks_).
  // Its block ids, in token order, when the replica caches prefixes (block_pool.h);
  // without prefix caching blocks are only counted and this stays empty.
  std::vector<std::int32_t> block_ids_;
  // The blocks of the admission being planned still to load from the KV tiers, which the
  // step that computes the request prices (Replica::prepare_step, through
  // KvCacheManager::take_tier_loads).
  std::int64_t tier_load_blocks_[2] = {0, 0};
  // Prefix caching: private_blocks_[i] is the block this request registered under its
  // private hash of block spec.block_hashes.size() + i (KvCacheManager::block_hash), or -1.
  // Written from its first preemption on; before, its private hashes are not registered
  // yet (KvCacheManager::remember_private_blocks).
  // Only this request can hit those hashes, so the replica looks them up here rather than
  // in its hash index; the blocks belong to the KV cache `private_blocks_owner_`.
  std::vector<std::int32_t> private_blocks_;
  const void* private_blocks_owner_ = nullptr;
  // Without a table for the cache it is in, the first block whose private-hash
  // registration is deferred until it frees its blocks unfinished; -1: none
  // (KvCacheManager::cache_blocks).
  std::int64_t private_pending_from_ = -1;
  // A swapped-out request keeps its computed tokens; their KV lies in this many blocks of
  // host swap space until it is scheduled again (docs/engine.md, preemption).
  std::int64_t swapped_blocks_ = 0;

 public:
  // --- the block table, read-only ---
  std::int64_t num_blocks() const { return num_blocks_; }
  const std::vector<std::int32_t>& block_ids() const { return block_ids_; }
  std::int64_t tier_load_blocks(int tier) const { return tier_load_blocks_[tier]; }
  const std::vector<std::int32_t>& private_blocks() const { return private_blocks_; }
  bool private_blocks_kept_by(const void* kv_cache) const { return private_blocks_owner_ == kv_cache; }
  std::int64_t private_pending_from() const { return private_pending_from_; }
  std::int64_t swapped_blocks() const { return swapped_blocks_; }
  // A record reused for a new request (Simulation's free list): a fresh state whose empty
  // block table keeps its vectors' memory (a fresh one would allocate them again).
  void reset_keeping_block_capacity() {
    std::vector<std::int32_t> ids = std::move(block_ids_);
    std::vector<std::int32_t> private_ids = std::move(private_blocks_);
    *this = RequestState{};
    ids.clear();
    private_ids.clear();
    block_ids_ = std::move(ids);
    private_blocks_ = std::move(private_ids);
  }

  // Preemption bookkeeping (docs/engine.md).
  std::int64_t recover_tokens = 0;      // computed tokens it had when last preempted
  Tick preempted_ns = 0;                // time lost: preemption until progress regained
  std::int64_t truncated_tokens = 0;    // tokens cut by on_context_overflow: truncate
  double spec_credit = 0;               // speculative decoding: expected tokens owed, < 1
  std::int64_t spec_accepted_tokens = 0;  // of num_output_done, those accepted with a step's own

  Tick kv_transfer_ns = 0;               // disaggregation: KV moved prefill -> decode (sim/cluster)
  // The front end's latency (overheads.frontend), fixed where the request first arrived:
  // the tokenizer's batch window depends on what else arrived there. -1: not yet arrived.
  Tick frontend_ns = -1;

  // Its place in its replica's running order: a number that grows with each request
  // joining the running list (0 while not running there). Kept only where the replica
  // keeps decodes lazy (sim/engine/lazy_decodes.h).
  std::int64_t running_seq = 0;
  // While `owner` is set the request is a lazy decode of that LazyDecodes: its counters
  // above and its decode attribution are as of the owner's step `sync_step`, and the
  // owner's sums then are kept here; LazyDecodes::sync brings them up to date.
  struct LazySync {
    const void* owner = nullptr;
    std::uint64_t serial = 0;  // which lazy span (stale queue entries carry an older one)
    std::int64_t sync_step = 0;
    Tick own_ns = 0, rest_ns = 0, extra_ns = 0;
    std::int64_t gpu_units = 0;
    int wheel_slot = 0;  // its slot in the owner's wheel (steps at which it starts a block)
  } lazy;

  // Known tokens: the prompt and every output token already sampled. The last output
  // token is never fed back, so a finished request computed num_tokens() - 1 at most.
  std::int64_t num_tokens() const { return spec.prompt_tokens + num_output_done; }
  // Tokens still to compute before the next output token (or, for output 0, the end).
  std::int64_t remaining() const { return num_tokens() - num_computed_tokens; }
  bool in_prefill() const { return num_computed_tokens < spec.prompt_tokens; }
  // Tokens the request holds in KV at its longest: the prompt plus all outputs but the last.
  std::int64_t max_kv_tokens() const {
    return spec.prompt_tokens + (spec.output_tokens > 0 ? spec.output_tokens - 1 : 0);
  }
};

}  // namespace servesim
