#include "sim/cluster/engine_setup.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/core/errors.h"
#include "sim/engine/memory_fit.h"
#include "sim/hardware/cost_model_spec.h"
#include "sim/model/lora_shapes.h"
#include "sim/model/shard.h"

namespace servesim {

std::int64_t kv_tokens_beside_draft(const PoolConfig& pool, const MemoryPlan& target, std::int64_t kv_tokens,
                                    const std::string& key) {
  const SpeculativeConfig& spec = pool.engine.speculative;
  if (!spec.enabled || !spec.draft_model) return kv_tokens;
  const MemoryPlan draft = plan_memory(*spec.draft_model, pool.hardware,
                                       draft_deployment(*spec.draft_model, pool.deployment),
                                       pool.engine.gpu_memory_utilization, pool.engine.max_batched_tokens);
  // The draft keeps a KV entry for every token the target does (vLLM sizes both caches to
  // the same number of tokens).
  const double kv_bytes = static_cast<double>(kv_tokens) * target.kv_bytes_per_token_per_gpu;
  const double left = kv_bytes - draft.weight_bytes_per_gpu;
  const double per_token = target.kv_bytes_per_token_per_gpu + draft.kv_bytes_per_token_per_gpu;
  const auto tokens = left > 0 ? static_cast<std::int64_t>(std::floor(left / per_token)) : 0;
  if (tokens < pool.engine.block_size)
    throw ConfigError("", 0, key + ".engine.speculative.draft",
                      "the draft model '" + spec.draft_model->name + "' leaves no room for the KV cache");
  return tokens;
}

std::int64_t kv_blocks_for_pool(const PoolConfig& pool, const MemoryPlan& plan, const std::string& key) {
  std::int64_t kv_tokens = plan.kv_capacity_tokens;
  if (pool.engine.kv_cache_tokens) {
    kv_tokens = *pool.engine.kv_cache_tokens;
  } else {
    if (!plan.fits)
      throw ConfigError("", 0, key, does_not_fit_message(pool.model, pool.hardware, pool.deployment, pool.engine, plan));
    kv_tokens = kv_tokens_beside_draft(pool, plan, kv_tokens, key);
  }
  return kv_tokens / pool.engine.block_size;
}

std::string kv_cache_report(const PoolConfig& pool, const std::string& key) {
  const MemoryPlan plan = plan_memory(pool.model, pool.hardware, pool.deployment, pool.engine);
  const std::int64_t blocks = kv_blocks_for_pool(pool, plan, key);
  std::string line = "pool " + pool.name + ": " + kv_cache_line(blocks, pool.engine.block_size) + " per replica; ";
  line += pool.engine.kv_cache_tokens ? "set by engine.kv_cache_tokens" : plan.explanation;
  if (const std::shared_ptr<KvTiers> tiers = make_kv_tiers(pool, plan)) {  // sized as the run sizes them
    const auto tokens = [&](KvTiers::Tier t) { return std::to_string(tiers->capacity_blocks(t) * pool.engine.block_size); };
    line += "; KV tiers: CPU " + tokens(KvTiers::kCpu) + " tokens, disk " + tokens(KvTiers::kDisk) +
            (pool.engine.kv_offload.shared ? " tokens shared by the pool's replicas" : " tokens per replica");
    if (!pool.engine.kv_offload.store_node.empty()) line += ", on topology node " + pool.engine.kv_offload.store_node;
  }
  return line;
}

std::shared_ptr<const CostModel> make_draft_cost_model(const PoolConfig& pool) {
  const SpeculativeConfig& spec = pool.engine.speculative;
  if (!spec.enabled || !spec.draft_model) return nullptr;
  return make_cost_model(pool.cost_model, *spec.draft_model, pool.hardware,
                         draft_deployment(*spec.draft_model, pool.deployment));
}

std::array<double, 2> tier_router_weights(const KvTierLink& link, const CostModel& target) {
  if (!(link.host_link_bytes_per_s > 0)) return {0, 0};  // a store not yet placed (store_node)
  constexpr std::int64_t kChunkTokens = 2048;
  BatchShape chunk;
  chunk.prefills.push_back(PrefillChunk{kChunkTokens, 0, true});
  const double recompute_ns = static_cast<double>(target.step_cost(chunk).total_ns) / kChunkTokens;
  const double link_ns = link.kv_bytes_per_token_per_gpu / link.host_link_bytes_per_s * 1e9;
  const double disk_ns = link.disk_bytes_per_s > 0 ? link.kv_bytes_per_token / link.disk_bytes_per_s * 1e9 : 0;
  const auto weight = [&](double load_ns) { return std::clamp(1.0 - load_ns / recompute_ns, 0.0, 1.0); };
  return {weight(link_ns), weight(link_ns + disk_ns)};
}

std::shared_ptr<KvTiers> make_kv_tiers(const PoolConfig& pool, const MemoryPlan& target) {
  const KvOffloadConfig& o = pool.engine.kv_offload;
  if (!o.enabled()) return nullptr;
  // The tiers' sizes are the replica's (or the shared store's), summed over GPUs (vLLM's
  // --kv-offloading-size), as is a block's KV: each GPU holds its share of every token.
  const double block_bytes = target.kv_bytes_per_token_per_gpu * pool.deployment.gpus() * pool.engine.block_size;
  const auto blocks_of = [&](double bytes) {
    return block_bytes > 0 ? static_cast<std::int64_t>(std::floor(bytes / block_bytes)) : 0;
  };
  return std::make_shared<KvTiers>(blocks_of(o.cpu_bytes), blocks_of(o.disk_bytes));
}

LoraLoadCost lora_load_cost(const PoolConfig& pool) {
  const LoraConfig& l = pool.engine.lora;
  LoraLoadCost cost;
  cost.adapter_bytes = lora_adapter_bytes(pool.model, pool.deployment, l);
  // Each GPU holds its tensor-parallel share of the adapter and does that share of its
  // FLOPs (an approximation of vLLM's column/row-parallel LoRA layers, which shard one of
  // A and B).
  const double gpus = pool.deployment.gpus();
  cost.adapter_bytes_per_gpu = cost.adapter_bytes / gpus;
  cost.host_link_bytes_per_s = pool.hardware.host_link_bandwidth_bytes_per_s;
  cost.disk_bytes_per_s = l.disk_bytes_per_s;
  // Two FLOPs per parameter per token (lora_shapes.h); an adapter_mb alone gives no shapes.
  if (!l.adapter_bytes_given) cost.flops_per_token_per_gpu = 2 * lora_adapter_params(pool.model, l.max_lora_rank) / gpus;
  cost.peak_flops_per_s = pool.hardware.peak_flops_bf16;
  cost.memory_bytes_per_s = pool.hardware.memory_bandwidth_bytes_per_s;
  return cost;
}

void set_up_replica(Replica& replica, const PoolConfig& pool, const MemoryPlan& target, const CostModel& cost,
                    std::shared_ptr<KvTiers> tiers, const std::shared_ptr<const CostModel>& draft) {
  const EngineConfig& e = pool.engine;
  if (e.preemption_mode == PreemptionMode::swap) {
    // swap_space is per GPU, and each GPU holds its share of every token's KV.
    const double block_bytes = target.kv_bytes_per_token_per_gpu * e.block_size;
    const auto blocks = block_bytes > 0 ? static_cast<std::int64_t>(std::floor(e.swap_space_bytes / block_bytes)) : 0;
    replica.set_swap_space(blocks, target.kv_bytes_per_token_per_gpu, pool.hardware.host_link_bandwidth_bytes_per_s);
  }
  if (tiers) {
    // Every GPU moves its share of a token's KV over its own host link; a shared store is
    // reached through the node's network, all the replica's KV at network_gb_s.
    const double gpus = pool.deployment.gpus();
    KvTierLink link;
    link.kv_bytes_per_token = target.kv_bytes_per_token_per_gpu * gpus;
    link.kv_bytes_per_token_per_gpu = e.kv_offload.shared ? link.kv_bytes_per_token : target.kv_bytes_per_token_per_gpu;
    link.host_link_bytes_per_s =
        e.kv_offload.shared ? e.kv_offload.network_bytes_per_s : pool.hardware.host_link_bandwidth_bytes_per_s;
    link.disk_bytes_per_s = e.kv_offload.disk_bytes_per_s;
    link.layerwise = e.kv_offload.backend == KvOffloadBackend::lmcache;
    replica.set_kv_tiers(std::move(tiers), link, tier_router_weights(link, cost));
  }
  if (draft) replica.set_draft_cost_model(draft);
  if (e.lora.enabled) replica.set_lora_load_cost(lora_load_cost(pool));
}

}  // namespace servesim
