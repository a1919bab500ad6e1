#include "sim/cluster/simulation.h"

#include <algorithm>
#include <numeric>

#include "sim/cluster/class_routing.h"
#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/metrics/energy_meter.h"
#include "sim/metrics/request_record.h"
#include "sim/metrics/slo_verdict.h"

namespace servesim {

Simulation::Simulation(std::uint64_t seed, StopSpec stop, std::vector<ClassSpec> workload, ClusterConfig cluster)
    : seed_(seed), stop_(stop), workload_(std::move(workload)), cluster_(std::move(cluster)) {
  std::vector<std::string> class_names, pool_names;
  for (const auto& c : workload_) class_names.push_back(c.name);
  for (const auto& p : cluster_.pools) pool_names.push_back(p.name);
  metrics_ = std::make_unique<MetricsRecorder>(class_names, pool_names);
  // Goodput judges each request by its class's SLOs; cost prices a replica's time at its
  // GPUs' price (docs/metrics.md).
  std::vector<SloTargets> slos;
  for (const auto& c : workload_)
    slos.push_back(SloTargets{c.slo.ttft_ns.value_or(-1), c.slo.itl_ns.value_or(-1), c.slo.tpot_ns.value_or(-1),
                              c.slo.e2el_ns.value_or(-1), c.slo.itl_stat == "every"});
  metrics_->set_class_slos(std::move(slos));
  std::vector<double> usd_per_replica_ns;
  std::vector<int> replica_counts;
  for (const auto& p : cluster_.pools) {
    usd_per_replica_ns.push_back(p.hardware.price_per_gpu_hour * p.deployment.gpus() / 3.6e12);
    replica_counts.push_back(p.replicas);
  }
  metrics_->set_pool_prices(std::move(usd_per_replica_ns));
  metrics_->set_pool_replica_counts(replica_counts);
  metrics_->set_warmup(stop_.warmup);
  for (const auto& p : cluster_.pools)
    if (p.engine.kv_offload.enabled()) metrics_->set_kv_tiers();
  for (const auto& p : cluster_.pools)
    if (p.engine.lora.enabled) metrics_->set_lora();
  // Warm-up hints (WarmUp) for large clusters only: at 1,024 replicas they saved ~2% of
  // the wall time, at 256 and fewer they cost 1.5% (256) to 7% (16), the replicas' state
  // being still in cache by their next step (docs/performance.md).
  constexpr int kWarmUpReplicas = 512;
  sim_.set_warm_ups(std::accumulate(replica_counts.begin(), replica_counts.end(), 0) >= kWarmUpReplicas);

  for (int p = 0; p < static_cast<int>(cluster_.pools.size()); ++p)
    pools_.push_back(std::make_unique<Pool>(sim_, p, cluster_.pools[static_cast<std::size_t>(p)], cluster_.router,
                                            seed_, *metrics_, *this, cluster_.router_staleness_ns));
  if (cluster_.gpus) share_gpu_budget(*cluster_.gpus);

  for (std::size_t c = 0; c < workload_.size(); ++c) {
    const int chosen = pool_for_class(cluster_.pools, workload_[c].name, workload_[c].model);
    if (chosen < 0)
      throw ConfigError("", 0, "workload." + std::to_string(c) + ".class",
                        "no pool serves class '" + workload_[c].name + "'");
    pool_of_class_.push_back(chosen);
    // Prefix hashes are computed per KV block of the pool that serves the class.
    workload_[c].block_tokens = cluster_.pools[static_cast<std::size_t>(chosen)].engine.block_size;
    sources_.push_back(make_source(workload_[c], static_cast<int>(c), seed_));
    const PoolConfig& pool = cluster_.pools[static_cast<std::size_t>(chosen)];
    if (sources_.back()->names_adapters() && !pool.engine.lora.enabled)
      throw ConfigError(workload_[c].trace ? workload_[c].trace->path : "", 0, "workload." + std::to_string(c),
                        "class '" + workload_[c].name + "' names LoRA adapters, but pool '" + pool.name +
                            "', which serves it, has no engine lora block to serve them ({max_loras, disk_gb_s})");
  }
  // A synthetic source never runs out (unless its arrival stages end), so without a stop the
  // event loop would never end.
  if (!stop_.requests && !stop_.time_ns) {
    for (const auto& c : workload_)
      if (!c.trace && !(c.arrival && !c.arrival->stages.empty()))
        throw ConfigError("", 0, "stop",
                          "class '" + c.name + "' has synthetic arrivals that never run out; "
                          "give stop.requests or stop.time");
  }
  resolve_admission();
  place_on_topology();
  source_timers_.resize(sources_.size());
  for (std::size_t c = 0; c < sources_.size(); ++c) {
    SourceTimer& s = source_timers_[c];
    s = SourceTimer{this, static_cast<int>(c), 0, kTickMax};
    s.timer = sim_.add_timer(&Simulation::fire_arrival, &s);
  }
  std::int64_t slots = 0;  // requests the cluster runs at once
  for (const auto& p : cluster_.pools) {
    const std::int64_t pool_slots = std::int64_t{p.replicas} * p.engine.max_num_seqs;
    slots += pool_slots;
    pool_watch_.emplace_back(pool_slots);
  }
  saturation_ = SaturationWatch(slots);
  pool_in_flight_.assign(cluster_.pools.size(), 0);
  pool_unscheduled_.assign(cluster_.pools.size(), 0);
  pool_arrivals_at_instant_.assign(cluster_.pools.size(), 0);
  metrics_->set_sustained_meter(&sustained_);
  if (cluster_.energy) meter_energy();
}

Simulation::~Simulation() = default;

void Simulation::add_record_writer(std::function<void(const RequestRecord&)> writer) {
  metrics_->add_record_writer(std::move(writer));
}

void Simulation::add_request_sink(std::function<void(const RequestRecord&)> sink) {
  metrics_->add_request_sink(std::move(sink));
}

void Simulation::set_stop_check(StopCheck check) { stop_check_ = std::move(check); }

RequestState* Simulation::new_request_state() {
  if (free_states_.empty()) {
    request_slab_.push_back(std::make_unique<RequestState>());
    return request_slab_.back().get();
  }
  RequestState* s = free_states_.back();
  free_states_.pop_back();
  s->reset_keeping_block_capacity();
  return s;
}

// Keeps exactly one pending arrival event per source, at the source's earliest offer.
void Simulation::arm_source(int c) {
  if (!admitting_) return;
  auto& src = *sources_[static_cast<std::size_t>(c)];
  const auto next = src.peek_arrival_ns();
  const TimerId timer = source_timers_[static_cast<std::size_t>(c)].timer;
  Tick& armed_ns = source_timers_[static_cast<std::size_t>(c)].armed_ns;
  if (!next) return;
  if (sim_.timer_armed(timer) && armed_ns <= *next) return;
  armed_ns = std::max(*next, sim_.now());
  sim_.arm_timer(timer, armed_ns);
}

void Simulation::fire_arrival(void* source_timer) {
  const auto& s = *static_cast<const SourceTimer*>(source_timer);
  s.simulation->on_arrival(s.class_index);
}

void Simulation::on_arrival(int c) {
  source_timers_[static_cast<std::size_t>(c)].armed_ns = kTickMax;
  auto& src = *sources_[static_cast<std::size_t>(c)];
  // Requests that arrive at one instant start together (a benchmark's burst, equal
  // timestamps in a trace, a closed loop's users at t = 0): this source's are admitted in
  // this one event, and while the instant has more than one arrival every replica holds its
  // step until an event after them (other sources' arrivals of the instant were armed
  // earlier, so they run before it). A lone arrival is submitted at once, with no event added.
  for (;;) {
    if (!admitting_) return;
    const std::optional<Tick> due = src.peek_arrival_ns();
    if (!due || *due > sim_.now()) break;
    admit_one(c, src);
    if (aborted_) return;
  }
  arm_source(c);
}

bool Simulation::more_arrivals_now(int c) {
  if (!admitting_) return false;
  const std::optional<Tick> next = sources_[static_cast<std::size_t>(c)]->peek_arrival_ns();
  if (next && *next <= sim_.now()) return true;
  for (std::size_t k = 0; k < sources_.size(); ++k)
    if (static_cast<int>(k) != c && source_timers_[k].armed_ns == sim_.now() && sim_.timer_armed(source_timers_[k].timer)) return true;
  return false;
}

void Simulation::admit_one(int c, RequestSource& src) {
  RequestState* state = new_request_state();
  state->spec = src.pop();
  state->spec.priority = workload_[static_cast<std::size_t>(c)].priority;  // policies see the class's
  state->spec.id = next_request_id_++;
  state->spec.arrival_ns = sim_.now();
  // The summaries measure from the first arrival after the warm-up (none: the first arrival),
  // so their throughputs divide by the span from there to the end.
  if (first_arrival_ns_ < 0 && !stop_.warmup.covers(state->spec.id, sim_.now())) {
    first_arrival_ns_ = sim_.now();
    if (stop_.warmup.any()) {
      // Inter-token gaps count from this moment: the gaps that ended before it reach the
      // metrics first (a decode run's steps and held-back gaps), then the metrics open.
      for (auto& pool : pools_)
        for (auto& replica : pool->replicas()) replica->catch_up();
      metrics_->start_measuring_itl();
    }
  }
  const auto ci = static_cast<std::size_t>(c);
  const int pool = pool_of_class_[ci];
  const auto pi = static_cast<std::size_t>(pool);
  ++arrived_;
  ++in_flight_;
  ++pool_in_flight_[pi];
  sustained_.note_arrival(sim_.now());
  if (sim_.now() != instant_ns_) {
    instant_ns_ = sim_.now();
    arrivals_at_instant_ = 0;
    std::fill(pool_arrivals_at_instant_.begin(), pool_arrivals_at_instant_.end(), 0);
  }
  ++arrivals_at_instant_;
  ++pool_arrivals_at_instant_[pi];
  if (stop_.requests && arrived_ >= *stop_.requests) {
    admitting_ = false;
    for (const SourceTimer& s : source_timers_) sim_.disarm_timer(s.timer);
  }
  if (!holding_steps_ && more_arrivals_now(c)) {
    holding_steps_ = true;
    for (auto& p : pools_)
      for (auto& replica : p->replicas()) replica->hold();
    sim_.schedule_in(0, [this] {
      holding_steps_ = false;
      for (auto& p : pools_)
        for (auto& replica : p->replicas()) replica->release();
    });
  }
  if (queue_limit_[ci] >= 0 && unscheduled_[ci] >= queue_limit_[ci]) {
    reject_at_door(*state, pool, "queue_full");
  } else {
    ++unscheduled_[ci];  // until its first step (on_first_scheduled) or it leaves
    ++unscheduled_total_;
    ++pool_unscheduled_[pi];
    if (timeout_ns_[ci] >= 0) {
      const std::uint64_t id = state->spec.id;
      const EventHandle h = sim_.schedule_in(timeout_ns_[ci], [this, id] { on_timeout(id); });
      timeouts_.emplace(id, std::pair{h, state});
    }
    pools_[static_cast<std::size_t>(pool)]->submit(*state);
  }
  // After submit, so a request rejected on arrival does not count as inside.
  peak_in_flight_ = std::max(peak_in_flight_, in_flight_);
  in_flight_at_last_arrival_ = in_flight_;
  // The waiting backlog leaves out this instant's arrivals: the replicas hold their steps
  // until all are in (a burst, a closed loop's users at t = 0), so they wait by design, not
  // because a limit holds them; a burst is judged, as before, by what exceeds the slots.
  saturation_.observe(arrived_, in_flight_, std::max<std::int64_t>(unscheduled_total_ - arrivals_at_instant_, 0));
  for (std::size_t p = 0; p < pool_watch_.size(); ++p)
    pool_watch_[p].observe(arrived_, pool_in_flight_[p],
                           std::max<std::int64_t>(pool_unscheduled_[p] - pool_arrivals_at_instant_[p], 0));
  sustained_.note_in_flight(sim_.now(), in_flight_);
  if (stop_check_ && stop_check_(arrived_, in_flight_)) {
    aborted_ = true;
    admitting_ = false;
    for (const SourceTimer& s : source_timers_) sim_.disarm_timer(s.timer);
    sim_.stop();
  }
}

void Simulation::on_request_done(RequestState& request, Tick now_ns) {
  if (request.first_scheduled_ns < 0) leave_unscheduled(request);
  cancel_timeout(request.spec.id);
  --in_flight_;
  SS_ASSERT(request.pool_index >= 0, "a request left without a pool");
  --pool_in_flight_[static_cast<std::size_t>(request.pool_index)];
  last_done_ns_ = std::max(last_done_ns_, now_ns);
  if (request.pool_index >= 0)
    if (Autoscaler* a = pools_[static_cast<std::size_t>(request.pool_index)]->autoscaler()) a->on_request_left(request);
  const int c = request.spec.class_index;
  sources_[static_cast<std::size_t>(c)]->on_finished(request.spec, now_ns);
  free_states_.push_back(&request);
  arm_source(c);
}

void Simulation::record_unfinished(const RequestState& r) {
  metrics_->record_request(make_request_record(r, Outcome::unfinished, sim_.now()));
}

void Simulation::on_head_blocked(int pool_index, HeadBlock why) {
  saturation_.note_blocked(static_cast<int>(why));
  pool_watch_[static_cast<std::size_t>(pool_index)].note_blocked(static_cast<int>(why));
}

SaturationVerdict Simulation::saturation_verdict(double tolerance) const {
  StepBoundTime bound;
  std::vector<PoolSaturationInput> per_pool;
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    PoolSaturationInput in{cluster_.pools[p].name, &pool_watch_[p], {}};
    for (const auto& replica : pools_[p]->replicas()) {
      in.bound.compute_ns += static_cast<double>(replica->stats().compute_bound_ns);
      in.bound.memory_ns += static_cast<double>(replica->stats().memory_bound_ns);
    }
    bound.compute_ns += in.bound.compute_ns;
    bound.memory_ns += in.bound.memory_ns;
    per_pool.push_back(std::move(in));
  }
  bool closed_loop = !workload_.empty();
  for (const auto& c : workload_)
    closed_loop &= !c.trace && c.arrival && c.arrival->process == ArrivalSpec::Process::closed;
  SaturationVerdict v = judge_saturation(saturation_, sustained_, tolerance, bound, closed_loop);
  name_binding_pool(v, per_pool);
  return v;
}

// Saturation uses the one rule of `capacity`, `sweep` and `explain` (saturation_verdict.h,
// docs/metrics.md): the backlog grew without bound, or the rate served over the second half
// of the arrivals fell short of the rate offered; a run too short to tell says so.
void Simulation::note_saturation(RunResult& result) const {
  const SaturationVerdict v = saturation_verdict(kSustainTolerance);
  result.peak_in_flight = peak_in_flight_;
  result.backlog = in_flight_at_last_arrival_;
  result.saturation = v;  // the judgement, without the judge's working (saturation.h)
  SummaryBlock& s = result.summary.overall;
  s.set_count("peak_in_flight", result.peak_in_flight);
  s.set_count("backlog", result.backlog);
  s.set_count("saturated", v.saturated ? 1 : 0);
  s.set_label("saturated_by", v.by, "saturated");
  s.set_label("saturated_resource", v.resource, "saturated");
  s.set_label("saturated_pool", v.pool, "saturated");
  // Each pool's own limit and resource: "none" for a pool that did not run short.
  for (std::size_t p = 0; p < result.summary.pools.size(); ++p) {
    SummaryBlock& b = result.summary.pools[p].second;
    const bool named = p < v.pools.size();
    b.set_label("saturated_by", named ? v.pools[p].by : "none", "");
    b.set_label("saturated_resource", named ? v.pools[p].resource : "none", "");
  }
  s.set_count("too_short_to_judge", v.too_short ? 1 : 0);
  s.set("sustained_offered_rate", v.sustained.offered_per_s);
  s.set("sustained_served_rate", v.sustained.served_per_s);
  s.set_label("saturation_note", v.note, "sustained_served_rate");
}

// MFU and memory-bandwidth use per phase: the work per GPU the cost model counted over
// the phase's step time at the hardware's peaks (docs/metrics.md). Pools, then overall.
void Simulation::note_utilisation(RunResult& result) const {
  struct Use {
    double flops[2] = {0, 0}, peak_flop[2] = {0, 0}, bytes[2] = {0, 0}, peak_byte[2] = {0, 0};
    void set(SummaryBlock& b) const {
      auto ratio = [](double a, double c) { return c > 0 ? a / c : 0.0; };
      b.set("mfu_prefill", ratio(flops[0], peak_flop[0]));
      b.set("mfu_decode", ratio(flops[1], peak_flop[1]));
      b.set("mbu_prefill", ratio(bytes[0], peak_byte[0]));
      b.set("mbu_decode", ratio(bytes[1], peak_byte[1]));
    }
  };
  Use all;
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    const PoolConfig& cfg = pools_[p]->config();
    const double peak_flops = cfg.hardware.peak_flops(cfg.deployment.weights == Dtype::fp8 ? Dtype::fp8 : Dtype::bf16);
    const double peak_bytes = cfg.hardware.memory_bandwidth_bytes_per_s;
    Use use;
    for (const auto& replica : pools_[p]->replicas()) {
      const ReplicaStats& st = replica->stats();
      const double time_s[2] = {st.prefill_time_ns * 1e-9, st.decode_time_ns * 1e-9};
      const double flops[2] = {st.prefill_flops, st.decode_flops};
      const double bytes[2] = {st.prefill_bytes, st.decode_bytes};
      for (int k = 0; k < 2; ++k) {
        use.flops[k] += flops[k];
        use.peak_flop[k] += time_s[k] * peak_flops;
        use.bytes[k] += bytes[k];
        use.peak_byte[k] += time_s[k] * peak_bytes;
      }
    }
    for (int k = 0; k < 2; ++k) {
      all.flops[k] += use.flops[k];
      all.peak_flop[k] += use.peak_flop[k];
      all.bytes[k] += use.bytes[k];
      all.peak_byte[k] += use.peak_byte[k];
    }
    use.set(result.summary.pools[p].second);
  }
  all.set(result.summary.overall);
}

void Simulation::note_kv_tier_traffic(RunResult& result) const {
  const auto set = [](SummaryBlock& block, double loaded_bytes, double stored_bytes) {
    for (FieldGroup& group : block.objects) {
      if (group.name != "kv_tiers") continue;
      group.set("loaded_gb", loaded_bytes * 1e-9);  // tier -> HBM
      group.set("stored_gb", stored_bytes * 1e-9);  // HBM -> tiers, on eviction
    }
  };
  double all_loaded = 0, all_stored = 0;
  bool any = false;
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    const PoolConfig& cfg = pools_[p]->config();
    if (!cfg.engine.kv_offload.enabled()) continue;
    any = true;
    // A token's KV over all the replica's GPUs (each moves its share).
    const double token_bytes = pools_[p]->memory_plan().kv_bytes_per_token_per_gpu * cfg.deployment.gpus();
    double loaded = 0, stored = 0;
    for (const auto& replica : pools_[p]->replicas()) {
      loaded += static_cast<double>(replica->stats().kv_loaded_tokens) * token_bytes;
      stored += static_cast<double>(replica->stats().kv_stored_tokens) * token_bytes;
    }
    set(result.summary.pools[p].second, loaded, stored);
    all_loaded += loaded;
    all_stored += stored;
  }
  if (any) set(result.summary.overall, all_loaded, all_stored);
}

RunResult Simulation::run() {
  // A run that ends by an exception (an interrupt, a bad trace row) still hands every
  // record made to the writers before what they write to goes away.
  struct SettleOnExit {
    MetricsRecorder& metrics;
    ~SettleOnExit() { metrics.settle_quietly(); }
  } settle_on_exit{*metrics_};
  for (int c = 0; c < static_cast<int>(sources_.size()); ++c) arm_source(c);
  for (auto& pool : pools_)
    if (Autoscaler* a = pool->autoscaler()) a->start([this] { return work_remains(); });
  const Tick until = stop_.time_ns.value_or(kTickMax);
  sim_.run(until);

  RunResult result;
  result.aborted = aborted_;
  result.stopped_by_time = !aborted_ && (in_flight_ > 0 || sim_.has_pending());
  SS_ASSERT(stop_.time_ns || aborted_ || in_flight_ == 0, "the event queue ran dry with requests still in flight");
  // Requests still inside when time ran out are reported as unfinished, never dropped.
  // (for_each_request first applies a decode run's steps up to the clock: the stats too.)
  for (auto& pool : pools_)
    for (auto& replica : pool->replicas()) {
      replica->for_each_request([&](RequestState& r) { record_unfinished(r); });
      result.steps += replica->stats().steps;
      result.preemptions += replica->stats().preemptions;
    }
  for (const auto& [id, h] : hand_overs_) record_unfinished(*h.request);  // KV still on the wire

  result.end_ns = result.stopped_by_time ? sim_.now() : last_done_ns_;
  const Tick start = first_arrival_ns_ < 0 ? 0 : first_arrival_ns_;
  result.summary = metrics_->summarize(std::max<Tick>(result.end_ns - start, 0));
  add_slo_verdicts(workload_, result.summary);  // each class's SLO on its own figures
  result.arrived = arrived_;
  result.completed = metrics_->completed();
  result.rejected = metrics_->rejected();
  result.unfinished = metrics_->unfinished();
  result.events = sim_.events_run();
  note_saturation(result);
  note_utilisation(result);
  note_kv_tier_traffic(result);
  note_fleet(result);
  note_energy(result);
  note_lora(result);
  SS_ASSERT(std::accumulate(pool_in_flight_.begin(), pool_in_flight_.end(), std::int64_t{0}) +
                    static_cast<std::int64_t>(hand_overs_.size()) ==
                in_flight_,
            "the pools' requests inside and those on the wire are the cluster's");
  // Conservation: every request that arrived left as completed, rejected or unfinished.
  SS_ASSERT(result.arrived == result.completed + result.rejected + result.unfinished,
            "request conservation (arrived = completed + rejected + unfinished)");
  return result;
}

}  // namespace servesim
