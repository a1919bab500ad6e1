#include "sim/cluster/pool.h"

#include "sim/cluster/engine_setup.h"
#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/engine/block_pool.h"
#include "sim/hardware/power_capped_cost_model.h"

namespace servesim {

Pool::Pool(Simulator& sim, int pool_index, const PoolConfig& config, const std::string& router_name,
           std::uint64_t seed, MetricsRecorder& metrics, ReplicaListener& listener, Tick router_staleness_ns)
    : config_(config), sim_(sim), staleness_ns_(router_staleness_ns) {
  const std::string key = "cluster.pools." + std::to_string(pool_index);
  memory_plan_ = plan_memory(config_.model, config_.hardware, config_.deployment, config_.engine);
  kv_blocks_ = kv_blocks_for_pool(config_, memory_plan_, key);
  if (config_.engine.prefix_cache && kv_blocks_ > BlockPool::kMaxBlocks)
    throw ConfigError("", 0, key + ".engine.kv_cache_tokens",
                      "the prefix cache tracks at most " + std::to_string(BlockPool::kMaxBlocks) +
                          " KV blocks per replica, got " + std::to_string(kv_blocks_) +
                          " (kv_cache_tokens / block_size)");

  const auto policies = make_policy_registry();
  const auto* policy = policies.find(config_.engine.policy);
  if (!policy)
    throw ConfigError("", 0, key + ".engine.policy",
                      "unknown policy '" + config_.engine.policy + "'; valid: " + policies.names());
  const auto routers = make_router_registry();
  const auto* router = routers.find(router_name);
  if (!router) throw ConfigError("", 0, "cluster.router", "unknown router '" + router_name + "'; valid: " + routers.names());
  router_ = router->factory(seed, config_.name);
  router_reads_kv_ = router_->reads_kv_usage() || router_->wants_cached_prefix();

  cost_model_ = with_power_cap(make_cost_model(config_.cost_model, config_.model, config_.hardware, config_.deployment),
                               config_.hardware, config_.deployment, config_.engine.power_cap_w);
  const auto draft_cost_model = make_draft_cost_model(config_);
  // One store for every replica with kv_offload.shared; else each gets its own tiers.
  const std::shared_ptr<KvTiers> shared_tiers =
      config_.engine.kv_offload.shared ? make_kv_tiers(config_, memory_plan_) : nullptr;
  for (int i = 0; i < config_.replicas; ++i) {
    replica_metrics_.push_back(std::make_unique<ReplicaMetrics>(metrics, pool_index));
    replicas_.push_back(std::make_unique<Replica>(sim, pool_index, i, config_.engine, kv_blocks_,
                                                  policy->factory(), cost_model_, *replica_metrics_.back(),
                                                  listener, config_.model.max_context_tokens));
    set_up_replica(*replicas_.back(), config_, memory_plan_, *cost_model_,
                   shared_tiers ? shared_tiers : make_kv_tiers(config_, memory_plan_), draft_cost_model);
    replicas_.back()->set_hand_over_after_prefill(config_.role == PoolRole::prefill);
  }
  if (config_.autoscale) make_autoscaler(key);
  snapshots_.resize(replicas_.size());
  // A router's own index covers every replica; an autoscaled pool hands it the active ones
  // only, so it scans them.
  router_indexes_ = !autoscaler_ && router_->wants_snapshot_changes(replicas_.size());
  load_log_ = LoadChangeLog(replicas_.size());
  for (auto& r : replicas_) r->set_load_change_log(&load_log_);
  take_snapshots();  // the empty pool, as a stale router first sees it
}

void Pool::make_autoscaler(const std::string& key) {
  const AutoscaleSpec& spec = *config_.autoscale;
  const auto policies = make_autoscale_policy_registry();
  const auto* policy = policies.find(spec.policy);
  if (!policy)
    throw ConfigError("", 0, key + ".autoscale.policy",
                      "unknown autoscale policy '" + spec.policy + "'; valid: " + policies.names());
  Tick cold_start_ns = 0;
  if (spec.cold_start_ns) {
    cold_start_ns = *spec.cold_start_ns;
  } else {
    const double link = config_.hardware.host_link_bandwidth_bytes_per_s;
    if (!(link > 0))
      throw ConfigError("", 0, key + ".autoscale.cold_start",
                        "hardware '" + config_.hardware.name +
                            "' gives no host_link_bandwidth_gb_s to load the weights over; give cold_start");
    cold_start_ns = default_cold_start_ns(memory_plan_.weight_bytes_per_gpu, link);
  }
  autoscaler_ = std::make_unique<Autoscaler>(sim_, spec, cold_start_ns, replicas_, policy->factory(spec));
}

void Pool::snapshot(std::size_t i) {
  const Replica& r = *replicas_[i];
  snapshots_[i] = ReplicaSnapshot{static_cast<int>(i), r.outstanding(), r.num_waiting(), r.num_running(), r.kv_usage()};
  if (router_indexes_) router_->snapshot_changed(snapshots_, static_cast<int>(i));
}

void Pool::take_snapshots() {
  load_log_.clear();
  for (std::size_t i = 0; i < replicas_.size(); ++i) snapshot(i);
}

void Pool::catch_up_for_router() {
  // The other load figures (waiting, running) do not change within a decode run.
  if (router_reads_kv_)
    for (auto& r : replicas_) r->catch_up();
}

void Pool::refresh_changed_snapshots() {
  load_log_.drain([this](int i) { snapshot(static_cast<std::size_t>(i)); });
}

// Keeps refreshing while any replica has work; an idle pool's snapshot stays true until the
// next submit, which re-arms the refresh at the next multiple of the interval.
void Pool::on_refresh() {
  catch_up_for_router();
  refresh_changed_snapshots();
  for (const auto& r : replicas_)
    if (r->outstanding() > 0) {
      refresh_ = sim_.schedule_in(staleness_ns_, [this] { on_refresh(); });
      return;
    }
}

int Pool::route(const RequestState& request) {
  catch_up_for_router();
  if (staleness_ns_ == 0) refresh_changed_snapshots();
  if (autoscaler_) return route_among_active(request);
  // The prefix cache is asked live: it is the router's own index, not reported load.
  if (router_->wants_cached_prefix())
    for (std::size_t i = 0; i < replicas_.size(); ++i)
      snapshots_[i].cached_prefix_tokens = replicas_[i]->kv().cached_prefix_tokens(request.spec);
  if (router_->wants_lora())
    for (std::size_t i = 0; i < replicas_.size(); ++i) fill_lora(snapshots_[i], i, request);
  const RouteDecision d = router_->route(request.spec, snapshots_);
  return d.target;
}

int Pool::route_among_active(const RequestState& request) {
  routable_.clear();
  for (std::size_t i = 0; i < replicas_.size(); ++i) {
    if (!autoscaler_->routable(i)) continue;
    routable_.push_back(snapshots_[i]);
    if (router_->wants_cached_prefix())
      routable_.back().cached_prefix_tokens = replicas_[i]->kv().cached_prefix_tokens(request.spec);
    if (router_->wants_lora()) fill_lora(routable_.back(), i, request);
  }
  SS_ASSERT(!routable_.empty(), "an autoscaled pool keeps at least one replica active");
  const RouteDecision d = router_->route(request.spec, routable_);
  const int replica = routable_[static_cast<std::size_t>(d.target)].index;
  routed_(replica);
  return replica;
}

// Asked live, as the prefix cache is: the adapters are what the router's scrape of the
// engine's gauge would show, and the other load figures keep their own staleness.
void Pool::fill_lora(ReplicaSnapshot& snapshot, std::size_t replica, const RequestState& request) const {
  const Replica& r = *replicas_[replica];
  const Replica::LoraLoad load = r.lora_load(request.spec.lora_adapter);
  snapshot.lora_adapter_active = request.spec.lora_adapter != 0 && load.names_adapter;
  snapshot.lora_running_adapters = load.running_adapters;
  snapshot.lora_max_loras = config_.engine.lora.enabled ? config_.engine.lora.max_loras : 0;
}

void Pool::submit(RequestState& request) { submit_to(request, route(request)); }

void Pool::submit_to(RequestState& request, int replica) {
  replicas_[static_cast<std::size_t>(replica)]->submit(request);
  if (staleness_ns_ > 0 && !sim_.pending(refresh_)) {
    const Tick next = (sim_.now() / staleness_ns_ + 1) * staleness_ns_;
    refresh_ = sim_.schedule_at(next, [this] { on_refresh(); });
  }
}

}  // namespace servesim
