#include "sim/study/explain_levers.h"

#include <functional>

#include "sim/model/dtype.h"
#include "sim/scenario/scenario.h"

namespace servesim {
namespace {

std::string pool_key(std::size_t pool, const std::string& rest) {
  return "cluster.pools." + std::to_string(pool) + "." + rest;
}

// One override per pool, from that pool's config; an empty value skips the pool.
Lever per_pool(const Scenario& s, std::string name, std::string phase,
               const std::function<std::string(const PoolConfig&)>& value, const std::string& key) {
  Lever l{std::move(name), std::move(phase), {}, ""};
  for (std::size_t p = 0; p < s.cluster.pools.size(); ++p) {
    const std::string v = value(s.cluster.pools[p]);
    if (!v.empty()) l.overrides.push_back(pool_key(p, key) + "=" + v);
  }
  return l;
}

}  // namespace

std::vector<Lever> make_levers(const Scenario& s, const std::string& disaggregation,
                               const std::string& disaggregation_skip) {
  std::vector<Lever> levers;
  const auto& pools = s.cluster.pools;
  auto all = [&](const std::function<bool(const PoolConfig&)>& pred) {
    for (const auto& p : pools)
      if (!pred(p)) return false;
    return true;
  };

  // Prefill: prefix caching skips cached prompt tokens; the chunk size trades a prompt's
  // own speed against the decodes that share its steps.
  const bool cache_on = all([](const PoolConfig& p) { return p.engine.prefix_cache; });
  levers.push_back(per_pool(s, cache_on ? "prefix caching off" : "prefix caching on", "prefill",
                            [&](const PoolConfig&) { return cache_on ? "false" : "true"; }, "engine.prefix_cache"));
  levers.back().undoes_base = cache_on;
  const bool by_chunk = all([](const PoolConfig& p) { return p.engine.prefill_chunk_tokens > 0; });
  const std::string chunk_key = by_chunk ? "prefill_chunk_tokens" : "max_batched_tokens";
  for (const auto& [label, factor] : {std::pair{"/2", 0.5}, std::pair{"x2", 2.0}}) {
    Lever l = per_pool(s, chunk_key + " " + label, "prefill", [&, f = factor](const PoolConfig& p) {
      const auto base = by_chunk ? p.engine.prefill_chunk_tokens : p.engine.max_batched_tokens;
      const auto v = static_cast<std::int64_t>(static_cast<double>(base) * f);
      return v >= 1 ? std::to_string(v) : std::string();
    }, "engine." + chunk_key);
    if (l.overrides.size() != pools.size()) l.skip_reason = "the value would drop below 1";
    levers.push_back(std::move(l));
  }

  // Decode: weight bytes read by every step, and tokens per target pass.
  for (const char* dtype : {"fp8", "int4"}) {
    Lever l = per_pool(s, std::string("weights ") + dtype, "decode", [&](const PoolConfig& p) {
      return dtype_name(p.deployment.weights) == dtype ? std::string() : std::string(dtype);
    }, "weights");
    if (l.overrides.empty()) l.skip_reason = std::string("the weights are already ") + dtype;
    levers.push_back(std::move(l));
  }
  {
    Lever l = per_pool(s, std::string("speculative decoding (") + kExplainDraftModel + " draft, k 4)", "decode",
                       [](const PoolConfig& p) {
                         return p.engine.speculative.enabled
                                    ? std::string()
                                    : std::string("{draft: ") + kExplainDraftModel + ", k: 4, acceptance: 0.7}";
                       },
                       "engine.speculative");
    if (l.overrides.empty()) l.skip_reason = "speculative decoding is already on";
    levers.push_back(std::move(l));
  }

  // Capacity: how many requests run at once, and how many replicas share the load.
  for (const auto& [label, factor] : {std::pair{"/2", 0.5}, std::pair{"x2", 2.0}}) {
    Lever l = per_pool(s, std::string("max_num_seqs ") + label, "capacity", [f = factor](const PoolConfig& p) {
      const auto v = static_cast<int>(p.engine.max_num_seqs * f);
      return v >= 1 ? std::to_string(v) : std::string();
    }, "engine.max_num_seqs");
    if (l.overrides.size() != pools.size()) l.skip_reason = "max_num_seqs would drop below 1";
    levers.push_back(std::move(l));
  }
  // One replica more in one pool at a time: in a cluster of several pools (a prefill and a
  // decode pool, say) the question is which pool is short, and adding to all at once hides it.
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const std::string name = pools.size() == 1 ? "one more replica" : "one more replica in pool " + pools[p].name;
    levers.push_back(
        Lever{name, "capacity", {pool_key(p, "replicas") + "=" + std::to_string(pools[p].replicas + 1)}, ""});
  }
  // Shape: the same GPUs as a prefill pool and a decode pool (docs/cluster.md), so prompts
  // never share a step with decodes, at the price of the KV transfer and fewer GPUs per phase.
  levers.push_back(Lever{"separate prefill and decode pools", "capacity",
                         disaggregation.empty() ? std::vector<std::string>{} : std::vector<std::string>{disaggregation},
                         disaggregation.empty() ? (disaggregation_skip.empty() ? "cannot split this cluster" : disaggregation_skip)
                                                : ""});
  return levers;
}

}  // namespace servesim
