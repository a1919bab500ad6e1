// Simulation: prefill/decode disaggregation (docs/cluster.md). A prefill pool's replica
// hands a request over after the step that computed its prompt and sampled its first
// token; the decode pool's router picks a decode replica; the request's KV moves there over
// the topology, one flow per GPU shard; when the last shard arrives the first token is
// delivered (TTFT includes the transfer, as with vLLM/llm-d/Dynamo's decode-side first
// token) and the request decodes on, its prompt already computed. Also where replicas are
// placed on the topology, which a shared KV store on a topology node needs as well.
#include <algorithm>

#include "sim/cluster/engine_setup.h"
#include "sim/cluster/kv_store_reach.h"
#include "sim/cluster/simulation.h"
#include "sim/core/assert.h"
#include "sim/core/errors.h"

namespace servesim {

namespace {

int gpus_per_replica(const PoolConfig& p) { return p.deployment.tp * p.deployment.pp; }

}  // namespace

// Replicas take consecutive GPU nodes of the topology, pools in order, replicas in order,
// tp x pp GPUs each. Only a cluster with a prefill pool needs a network, and only it or a
// KV store on a topology node (kv_offload.store_node) needs the topology.
void Simulation::place_on_topology() {
  decode_pool_of_.assign(cluster_.pools.size(), -1);
  bool disaggregated = false;
  for (std::size_t p = 0; p < cluster_.pools.size(); ++p) {
    const PoolConfig& pool = cluster_.pools[p];
    const std::string key = "cluster.pools." + std::to_string(p);
    if (pool.role != PoolRole::prefill) continue;
    disaggregated = true;
    for (std::size_t d = 0; d < cluster_.pools.size(); ++d)
      if (cluster_.pools[d].name == pool.decode_pool) decode_pool_of_[p] = static_cast<int>(d);
    if (decode_pool_of_[p] < 0)
      throw ConfigError("", 0, key + ".decode_pool", "no pool named '" + pool.decode_pool + "'");
    if (cluster_.pools[static_cast<std::size_t>(decode_pool_of_[p])].role != PoolRole::decode)
      throw ConfigError("", 0, key + ".decode_pool", "pool '" + pool.decode_pool + "' does not have role decode");
  }
  const bool stores = std::any_of(cluster_.pools.begin(), cluster_.pools.end(),
                                  [](const PoolConfig& p) { return !p.engine.kv_offload.store_node.empty(); });
  if (!disaggregated && !stores) return;
  int gpus = 0;
  for (const PoolConfig& pool : cluster_.pools) {
    first_gpu_.emplace_back();
    for (int r = 0; r < pool.replicas; ++r, gpus += gpus_per_replica(pool)) first_gpu_.back().push_back(gpus);
  }
  TopologySpec spec;
  spec.preset = "dgx-h100";
  topology_ = std::make_unique<Topology>(build_topology(cluster_.topology.value_or(spec), gpus));
  // Every prefill GPU must reach every decode GPU it may send to.
  for (std::size_t p = 0; p < cluster_.pools.size(); ++p) {
    if (decode_pool_of_[p] < 0) continue;
    const auto d = static_cast<std::size_t>(decode_pool_of_[p]);
    for (int src : first_gpu_[p])
      for (int dst : first_gpu_[d])
        for (int i = 0; i < std::max(gpus_per_replica(cluster_.pools[p]), gpus_per_replica(cluster_.pools[d])); ++i) {
          const int a = topology_->gpus()[static_cast<std::size_t>(src + i % gpus_per_replica(cluster_.pools[p]))];
          const int b = topology_->gpus()[static_cast<std::size_t>(dst + i % gpus_per_replica(cluster_.pools[d]))];
          if (!topology_->path(a, b))
            throw ConfigError("", 0, "cluster.topology",
                              "no path from " + topology_->name(a) + " to " + topology_->name(b) + " (pool '" +
                                  cluster_.pools[p].name + "' sends KV to pool '" + cluster_.pools[d].name + "')");
        }
  }
  if (disaggregated) network_ = std::make_unique<KvTransferNetwork>(sim_, *topology_);
  if (stores) reach_kv_stores();
}

// Each replica of a pool whose shared store sits on a topology node loads and stores over
// its GPUs' paths to that node (kv_store_reach.h): each GPU its share of a token's KV.
void Simulation::reach_kv_stores() {
  for (std::size_t p = 0; p < cluster_.pools.size(); ++p) {
    const PoolConfig& pool = cluster_.pools[p];
    const std::string& node = pool.engine.kv_offload.store_node;
    if (node.empty()) continue;
    const std::string key = "cluster.pools." + std::to_string(p) + ".engine.kv_offload.store_node";
    const std::optional<int> store = topology_->find(node);
    if (!store) throw ConfigError("", 0, key, "no node named '" + node + "' in the cluster topology");
    const int gpus = gpus_per_replica(pool);
    std::vector<std::unique_ptr<Replica>>& replicas = pools_[p]->replicas();
    for (std::size_t r = 0; r < replicas.size(); ++r) {
      const std::optional<StoreReach> reach =
          reach_store(*topology_, first_gpu(static_cast<int>(p), static_cast<int>(r)), gpus, *store);
      if (!reach)
        throw ConfigError("", 0, key, "no path from every GPU of pool '" + pool.name + "' replica " + std::to_string(r) +
                                          " to node '" + node + "'");
      KvTierLink link = replicas[r]->kv_tier_link();
      link.kv_bytes_per_token_per_gpu = link.kv_bytes_per_token / gpus;
      link.host_link_bytes_per_s = reach->bytes_per_s;
      link.latency_ns = reach->latency_ns;
      replicas[r]->set_kv_tier_link(link, tier_router_weights(link, pools_[p]->cost_model()));
    }
  }
}

int Simulation::first_gpu(int pool, int replica) const {
  return first_gpu_[static_cast<std::size_t>(pool)][static_cast<std::size_t>(replica)];
}

// The KV of the prompt, per GPU shard (the prefill pool's memory plan: bytes per token per
// GPU, tp and pp already divided), one flow from each shard's GPU to its counterpart.
void Simulation::on_prefill_handed_over(RequestState& r, Tick now_ns) {
  const int p = r.pool_index;
  const int d = decode_pool_of_[static_cast<std::size_t>(p)];
  SS_ASSERT(d >= 0, "hand-over from a pool that is not a prefill pool");
  --pool_in_flight_[static_cast<std::size_t>(p)];  // on the wire until on_kv_arrived
  Pool& decode = *pools_[static_cast<std::size_t>(d)];
  const int target = decode.route(r);
  const int src_gpus = gpus_per_replica(cluster_.pools[static_cast<std::size_t>(p)]);
  const int dst_gpus = gpus_per_replica(cluster_.pools[static_cast<std::size_t>(d)]);
  const int flows = std::max(src_gpus, dst_gpus);
  const double total_bytes = pools_[static_cast<std::size_t>(p)]->memory_plan().kv_bytes_per_token_per_gpu *
                             static_cast<double>(r.spec.prompt_tokens) * src_gpus;
  r.first_token_ns = -1;  // delivered when the KV arrives
  hand_overs_[r.spec.id] = HandOver{&r, target, flows, now_ns};
  const std::uint64_t id = r.spec.id;
  const int src0 = first_gpu(p, r.replica_index), dst0 = first_gpu(d, target);
  for (int i = 0; i < flows; ++i) {
    const int a = topology_->gpus()[static_cast<std::size_t>(src0 + i % src_gpus)];
    const int b = topology_->gpus()[static_cast<std::size_t>(dst0 + i % dst_gpus)];
    network_->start(a, b, total_bytes / flows, [this, id] { on_kv_arrived(id); });
  }
}

void Simulation::on_kv_arrived(std::uint64_t request_id) {
  const auto it = hand_overs_.find(request_id);
  SS_ASSERT(it != hand_overs_.end(), "KV arrived for an unknown hand-over");
  if (--it->second.flows_left > 0) return;
  const HandOver h = it->second;
  hand_overs_.erase(it);
  RequestState& r = *h.request;
  const Tick now = sim_.now();
  r.kv_transfer_ns = now - h.prefill_end_ns;
  // The transfer is its own part of TTFT (docs/metrics.md); accounting resumes from here,
  // so the first decode gap starts at the first token's delivery.
  r.acct.ttft.kv_transfer_ns += r.kv_transfer_ns;
  r.acct.mark_ns = now;
  r.first_token_ns = now;
  r.last_token_ns = now;
  const int d = decode_pool_of_[static_cast<std::size_t>(r.pool_index)];
  ++pool_in_flight_[static_cast<std::size_t>(d)];
  pools_[static_cast<std::size_t>(d)]->submit_to(r, h.decode_replica);
}

}  // namespace servesim
