#pragma once
// What a pool sets up beside each replica's scheduler and cost model, from its engine
// config: the draft model of speculative decoding (its cost model, and the memory it takes
// from the KV cache) and the host swap space.
#include <array>
#include <cstdint>
#include <memory>

#include "sim/cluster/cluster_config.h"
#include "sim/engine/replica.h"
#include "sim/engine/memory_plan.h"

namespace servesim {

// KV tokens left once the draft model (if any) has its weights and its own KV for every
// token in memory: (target KV bytes - draft weights) / (target + draft KV bytes per token).
// Returns `kv_tokens` unchanged without a draft model. Throws ConfigError when the draft
// leaves no room.
std::int64_t kv_tokens_beside_draft(const PoolConfig& pool, const MemoryPlan& target, std::int64_t kv_tokens,
                                    const std::string& key);

// KV blocks per replica as the pool's engine sizes them: engine.kv_cache_tokens if given,
// else the memory plan's capacity (its engine rule), less a draft model's share, divided
// by block_size. Throws ConfigError when the model does not fit. `key` names the pool.
std::int64_t kv_blocks_for_pool(const PoolConfig& pool, const MemoryPlan& plan, const std::string& key);

// "pool NAME: KV cache: N tokens (B blocks of S) per replica; <the memory plan's arithmetic>",
// the line `servesim validate` and `servesim run` print for each pool.
std::string kv_cache_report(const PoolConfig& pool, const std::string& key);

// The draft model's cost model (null without one: n-gram proposals cost no GPU time).
std::shared_ptr<const CostModel> make_draft_cost_model(const PoolConfig& pool);

// The KV tiers of engine.kv_offload sized in blocks (null without): one replica's, or the
// store a pool's replicas share (kv_offload.shared).
std::shared_ptr<KvTiers> make_kv_tiers(const PoolConfig& pool, const MemoryPlan& target);

// What a prefix token found in each KV tier is worth to a router against one in HBM: the
// share of its recompute that loading it back saves, 1 - load time / recompute time per
// token (0 where loading is slower). Recompute is priced as a 2048-token prompt chunk on
// the pool's cost model (`target`), per token.
std::array<double, 2> tier_router_weights(const KvTierLink& link, const CostModel& target);

// Gives the replica its swap space (preemption_mode swap), KV tiers (`tiers`, from
// make_kv_tiers: its own or a shared store; `cost`, the pool's cost model, prices the
// recompute a tier's hit saves) and draft cost model.
// Multi-LoRA serving: what loading one of the pool's adapters costs a replica.
LoraLoadCost lora_load_cost(const PoolConfig& pool);
void set_up_replica(Replica& replica, const PoolConfig& pool, const MemoryPlan& target, const CostModel& cost,
                    std::shared_ptr<KvTiers> tiers, const std::shared_ptr<const CostModel>& draft);

}  // namespace servesim
