#pragma once
// One serving replica: a scheduler, a paged KV cache and a cost model, advanced one engine
// step at a time. Each step is one event: the scheduler fills the budget, the cost model
// prices the batch, and at the step's end tokens are emitted and finished requests leave.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/signal.h"
#include "sim/core/simulator.h"
#include "sim/engine/engine_config.h"
#include "sim/engine/kv_cache_manager.h"
#include "sim/engine/lora_slots.h"
#include "sim/engine/lazy_decodes.h"
#include "sim/engine/load_change_log.h"
#include "sim/engine/measurement_listener.h"
#include "sim/engine/replica_stats.h"
#include "sim/engine/request_state.h"
#include "sim/engine/scheduler.h"
#include "sim/engine/step_additions.h"
#include "sim/engine/speculative.h"
#include "sim/engine/step_accounting.h"
#include "sim/engine/swap_space.h"
#include "sim/hardware/cost_model.h"

namespace servesim {

// Why a step left the head of its waiting queue waiting, by the first limit it hit in the
// order the schedulers check them (docs/reliability.md, "Saturation"): the sequence slots
// were full; the token budget was spent (or too little was left for a whole prompt); the KV
// cache could not take the head's next chunk (blocks short, or the admission rule's
// watermark or reservation refused it); none of these (the policy chose not to: a static
// batch, a decode target), so only more compute would have served it sooner.
enum class HeadBlock : int { max_num_seqs = 0, token_budget = 1, kv_cache = 2, compute = 3 };
inline constexpr int kHeadBlockKinds = 4;
const char* head_block_name(HeadBlock why);

// What the cluster learns from a replica. Called once per request that leaves it.
class ReplicaListener {
 public:
  virtual ~ReplicaListener() = default;
  // The request completed or was rejected; the replica no longer refers to it. `now_ns` is
  // when the client has the answer: for a completed request, the end of its last step plus
  // the engine's front-end latency (overheads.frontend), so it may lie in the future.
  virtual void on_request_done(RequestState& request, Tick now_ns) = 0;
  // The request's first step starts (admission and timeouts, sim/cluster). Once per request.
  virtual void on_first_scheduled(RequestState& /*request*/, Tick /*now_ns*/) {}
  // With set_hand_over_after_prefill: the request's prompt is computed and its first token
  // sampled; the replica has freed its KV and no longer refers to it.
  virtual void on_prefill_handed_over(RequestState& /*request*/, Tick /*now_ns*/) {}
  // A step was planned with requests still waiting: why the first of them did not join.
  // Once per such step; the simulation counts them, per pool (`pool_index`: the replica's),
  // to name what binds a growing backlog.
  virtual void on_head_blocked(int /*pool_index*/, HeadBlock /*why*/) {}
};

class Replica {
 public:
  Replica(Simulator& sim, int pool_index, int replica_index, const EngineConfig& config,
          std::int64_t kv_blocks, std::unique_ptr<Scheduler> scheduler,
          std::shared_ptr<const CostModel> cost_model, MeasurementListener& measurements,
          ReplicaListener& listener, std::int64_t max_context_tokens);
  // Its step timer calls back this object: it stays where it was made.
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  // Takes a request (the caller keeps ownership of the state until on_request_done).
  void submit(RequestState& request);
  // While held, an idle replica starts no step: submits only queue. release() starts one
  // if it can. The simulation holds its replicas while it admits requests that arrive at
  // the same instant, so that they start together, up to the batch limits.
  void hold() { held_ = true; }
  void release() {
    held_ = false;
    maybe_start_step();
  }

  // Load figures for routers.
  std::int64_t outstanding() const { return num_waiting() + num_running(); }
  std::int64_t num_waiting() const { return static_cast<std::int64_t>(waiting_.size() + arriving_.size()); }
  std::int64_t num_running() const { return static_cast<std::int64_t>(running_.size()); }
  double kv_usage() const { return kv_.usage(); }
  // What vLLM's vllm:lora_requests_info gauge tells a router (vllm/v1/metrics/loggers.py:
  // running_lora_adapters, waiting_lora_adapters, max_lora): whether a running or waiting
  // request names `adapter` (> 0), and how many distinct adapters the running requests name.
  struct LoraLoad {
    bool names_adapter = false;
    int running_adapters = 0;
  };
  LoraLoad lora_load(int adapter) const;
  const KvCacheManager& kv() const { return kv_; }
  const ReplicaStats& stats() const { return stats_; }
  // Called at the start of every step with its plan and cost (traces, timelines, tests,
  // the invariant checker). Several may watch one replica, called in the order added.
  using StepObserver = Signal<void(int replica_index, Tick start_ns, const StepPlan&, const StepCost&)>::Slot;
  // An observer sees every request of every step in the plan, so it switches lazy decodes
  // off (lazy_decodes.h): with an observer the replica takes the step-by-step path, whose
  // results are the same.
  void add_step_observer(StepObserver fn) {
    keep_no_decodes_lazy();
    stepped_.connect(std::move(fn));
  }
  // What the replica added to the policy's plan of the step in flight (for an observer,
  // which gets the plan).
  const StepAdditions& step_additions() const { return added_; }
  // Called when the waiting queue, the running set or the KV cache may have changed other
  // than at a step's start (which step observers see): a request queued or withdrawn, a
  // step's end once its finished requests have left. With the step observers, a watcher
  // knows the replica's state at every moment (timeseries.csv's idle intervals and its
  // waiting_max). Like a step observer, it switches lazy decodes off.
  using StateObserver = Signal<void(int replica_index, Tick now_ns)>::Slot;
  void add_state_observer(StateObserver fn) {
    keep_no_decodes_lazy();
    state_changed_.connect(std::move(fn));
  }
  // Calls fn on every request still inside (for end-of-run accounting).
  void for_each_request(const std::function<void(RequestState&)>& fn);
  // A quiet stretch of decode steps runs as one event (decode_run.cpp): its steps up to
  // the event being run are applied when something reads the replica's KV cache, its
  // stats or its requests. Call before such a read from outside the replica (a router's
  // KV usage or prefix lookup, the end of the run); cheap when no stretch runs.
  void catch_up();
  // Every step its own event from now on (for tests: results are the same either way).
  void keep_no_decode_runs() {
    catch_up();
    SS_ASSERT(!in_run_, "decode runs are switched off between runs");
    runs_enabled_ = false;
  }

  // preemption_mode swap: host memory of `capacity_blocks` KV blocks, and what one KV token
  // costs to move (bytes per GPU, over a host link of bytes/s per GPU). Without this call
  // swap has no room and every preemption recomputes.
  void set_swap_space(std::int64_t capacity_blocks, double kv_bytes_per_token, double host_link_bytes_per_s) {
    swap_ = SwapSpace(capacity_blocks, kv_bytes_per_token, host_link_bytes_per_s);
  }
  // Multi-LoRA serving: what loading an adapter into a GPU slot costs (without this call,
  // nothing). REQUIRES: config.lora.enabled.
  void set_lora_load_cost(const LoraLoadCost& cost) { lora_cost_ = cost; }
  // Speculative decoding with a draft model: what its proposal passes cost. Without one the
  // proposals are free (n-gram lookup).
  void set_draft_cost_model(std::shared_ptr<const CostModel> draft) { speculation_.set_draft_cost_model(std::move(draft)); }
  const SwapSpace& swap_space() const { return swap_; }
  // KV tiers below HBM (engine_config.h, KvOffloadConfig), the replica's own or a store it
  // shares with others, and what moving KV to and from them costs. REQUIRES: prefix caching.
  // `router_weight`: KvCacheManager::add_tiers.
  void set_kv_tiers(std::shared_ptr<KvTiers> tiers, const KvTierLink& link, const std::array<double, 2>& router_weight) {
    kv_.add_tiers(std::move(tiers), router_weight);
    tier_link_ = link;
  }
  // How this replica reaches its tiers, once its place is known (a store on a topology
  // node, kv_store_reach.h). REQUIRES: set_kv_tiers first.
  const KvTierLink& kv_tier_link() const { return tier_link_; }
  void set_kv_tier_link(const KvTierLink& link, const std::array<double, 2>& router_weight) {
    kv_.set_tier_router_weight(router_weight);
    tier_link_ = link;
  }
  // A prefill replica of a disaggregated pair (docs/cluster.md): a request that still has
  // output tokens to produce after its first leaves at the end of the step that computed its
  // prompt, through ReplicaListener::on_prefill_handed_over. A request submitted with its
  // prompt already computed (num_computed_tokens = prompt, one output done) just decodes.
  void set_hand_over_after_prefill(bool on) {
    hand_over_after_prefill_ = on;
    if (on) keep_no_decodes_lazy();
  }
  // Every decode visited in every step from now on (lazy_decodes.h; the results are the
  // same either way: tests compare the two paths).
  void keep_no_decodes_lazy() {
    keep_no_decode_runs();
    lazy_.make_all_explicit(running_);
    lazy_enabled_ = false;
  }
  bool keeps_decodes_lazy() const { return lazy_enabled_; }
  // Removes a request that waits and was never scheduled, recording it as rejected with
  // `reason` (a static string). Returns false, changing nothing, when it is not such a one.
  bool withdraw_unscheduled(RequestState& request, const char* reason);
  // The replica marks itself in `log` after its load figures change and before any
  // listener or observer call (which may route), so a router that refreshes only marked
  // replicas sees live figures (tests/cluster/load_snapshot_test.cpp). nullptr: no log.
  void set_load_change_log(LoadChangeLog* log) { load_log_ = log; }

 private:
  // A replica's code is split by what it does (docs/engine.md):
  //   replica.cpp             requests in and out, starting a step (scheduling, pricing);
  //   replica_step_start.cpp  a step's extras beyond the model: overheads, swap, speculation;
  //   replica_step_end.cpp    a step's end: tokens emitted, finished requests leave;
  //   decode_run.cpp          a quiet stretch of decode steps as one event;
  // and its parts own the rest: scheduler (the policy), KvCacheManager, LazyDecodes,
  // SwapSpace (host memory and link), SpeculativeDecoding, apply_context_limit.

  // --- replica.cpp ---
  void maybe_start_step();
  // Async scheduling plans each step as the one before it starts: a request that arrives
  // after that waits in arriving_ and joins the waiting queue once the next step is planned.
  // At a step's end (not busy, requests still running) the next step is planned already.
  bool arrives_late() const {
    return config_.async_scheduling && (busy_ ? sim_.now() > step_start_ns_ : !running_.empty());
  }
  void take_arrivals();
  // The front end's latency for a request arriving now (overheads.frontend), its wait in
  // the tokenizer's batch window included; opens a window when none is open.
  Tick front_end_latency(const RequestState& r);
  // Where this replica's step ends stand among the events of their nanosecond: before
  // every plain event, after the step ends of replicas before it (event_queue.h).
  SameTimeOrder step_end_order() const { return step_end_order_; }
  SameTimeOrder make_step_end_order() const;
  // From prepare_step to the load mark: the step in plan_ starts now, priced `priced` (the
  // cost model's price of plan_.shape) or, when null, by the cost model. Returns its cost,
  // extras included.
  StepCost begin_step(Tick now, const StepCost* priced);
  void finish(RequestState& request);
  void reject(RequestState& request, const char* reason);

  // --- replica_step_start.cpp ---
  // After scheduling: preemption clocks, swap-in, speculation, CPU overheads, first-step
  // marks (with the listener's on_first_scheduled) and plan_'s work counts. Returns the
  // time added to the model's step (also split out in added_).
  Tick prepare_step(Tick now);
  // KV tiers: the plan's loads from them and its kv_load_ns.
  void load_from_tiers();
  // Multi-LoRA: the plan's adapters into GPU slots and their lora_load_ns.
  void load_adapters();

  // --- replica_step_end.cpp ---
  void on_step_end();
  // WarmUp hint of the step-end event: prefetches what on_step_end reads first.
  static void warm_step_end(const void* replica, int stage);
  // The end of a step's start, once split_ is known (begin_step, begin_quiet_step): the
  // lazy decodes charged their share, utilisation and bound time counted, the replica busy
  // from `now`. Inline: every step passes here.
  void mark_step_started(Tick now, const StepCost& cost) {
    if (plan_.lazy_decodes > 0) {
      lazy_.charge_step_start(split_.decode_units, now);
      stats_.lazy_decode_tokens += plan_.lazy_decodes;
    }
    stats_.add_utilisation(split_);
    stats_.add_bound_time(cost.compute_ns, cost.memory_ns);
    busy_ = true;
    step_start_ns_ = now;
    note_load_change();
  }
  // At a step's end: the requests it finished (or handed over to a decode replica) leave
  // running_, in running order, and are finished or handed over.
  void release_finished(Tick now);
  // The step's finished requests taken out of running_ (kept in order) into `done`, in
  // running order, without visiting the others (lazy decodes).
  void remove_finished_by_seq(std::vector<RequestState*>& done);
  // Takes `done` (in running_seq order) out of running_, keeping the others' order.
  void remove_from_running(const std::vector<RequestState*>& done);
  // After a decode run's last step at which requests were due for their last token alone:
  // they finish as the chunks of an explicit step would (release_finished).
  void release_run_finished();
  // The step's end up to the lazy decodes' part: counts, busy time, their tokens and gaps.
  void end_step_counts(Tick now);
  // The step's end for a chunk: `accepted` extra speculative tokens, and whether the
  // request has regained what a preemption took.
  void emit_accepted(RequestState& request, std::int64_t accepted);
  void note_recovery(RequestState& request, Tick now);

  // --- decode_run.cpp ---
  // At a step boundary where every running request is lazy and none waits, plans the
  // coming quiet steps as one event and starts the first; false when there are fewer
  // than two.
  bool start_decode_run();
  // Longest stretch priced at once: a submit cuts a run short, and the steps priced past
  // the cut are thrown away, while a longer run spares events. With the kernels model's run
  // pricing at ~30 instructions a step, 48 and 64 ran the light 100k benchmark fastest of
  // 16 to 128 (64: 3% less wall time than 32, 1.5% fewer instructions; busy load: the
  // same; docs/performance.md); a quiet stretch longer than that is run as several.
  static constexpr std::int64_t kMostRunSteps = 64;
  // Applies the run's steps whose ends come before the event being run, and starts the one
  // in flight (for a reader of the replica: its KV blocks, its stats).
  void apply_run_steps();
  // The same, leaving the step in flight unstarted where nothing has to plan it yet.
  void apply_ended_run_steps();
  // Starts the run's step run_step_ as maybe_start_step would; its start time.
  void start_quiet_step();
  // Applies the run's steps [from, to), each start and end, leaving plan_ and split_
  // alone. REQUIRES: from < to, and step `from` not started (by start_quiet_step).
  void apply_quiet_steps(std::size_t from, std::size_t to);
  Tick step_start_of_run_step() const;
  // begin_step for a quiet step that is not the run's due step (plan_: the lazy decodes
  // alone) priced `cost`, with the same effects. REQUIRES: no KV tiers.
  StepCost begin_quiet_step(Tick now, StepCost cost);
  // The price of the run's step k.
  StepCost run_cost(std::size_t k) const {
    return run_shares_costs_ ? run_step_cost(run_shared_cost_, run_memory_ns_[k]) : run_costs_[k];
  }
  // A submit: the step in flight becomes the run's last.
  void interrupt_decode_run();
  // The event at the run's last step end.
  void end_decode_run();

  void note_load_change() {
    if (load_log_) load_log_->mark(replica_index_);
  }
  void note_state() {
    state_changed_(replica_index_, sim_.now());
  }

  Simulator& sim_;
  // The step in flight's end (or, in a decode run, the run's last step's): on_step_end, or
  // end_decode_run in a run (fire_step_end).
  TimerId step_timer_;
  static void fire_step_end(void* replica);
  int pool_index_;
  int replica_index_;
  SameTimeOrder step_end_order_;  // step_end_order(), fixed by the two indexes
  const EngineConfig& config_;
  KvCacheManager kv_;
  std::unique_ptr<Scheduler> scheduler_;
  std::shared_ptr<const CostModel> cost_model_;
  MeasurementListener& measurements_;  // what it measures goes here (sim/metrics subscribes)
  ReplicaListener& listener_;
  std::int64_t max_context_tokens_;

  std::deque<RequestState*> waiting_;
  std::vector<RequestState*> arriving_;  // arrives_late(): not yet seen by the scheduler
  std::vector<RequestState*> running_;
  StepPlan plan_;          // the step in flight (one at a time per replica), as the policy planned it
  StepAdditions added_;    // and what prepare_step added to it
  StepSplit split_;        // how its time divides (latency attribution, cost)
  bool busy_ = false;
  bool held_ = false;  // hold()
  Tick step_start_ns_ = 0;
  Tick tokenizer_window_end_ns_ = -1;  // the API server's open tokenizer batch closes then
  ReplicaStats stats_;
  Signal<void(int replica_index, Tick start_ns, const StepPlan&, const StepCost&)> stepped_;
  Signal<void(int replica_index, Tick now_ns)> state_changed_;
  // Steady decodes advanced as a count (lazy_decodes.h), where the policy allows it.
  LazyDecodes lazy_;
  bool lazy_enabled_ = false;
  // Decode runs: a quiet stretch of steps, priced when it starts (decode_run.cpp).
  bool runs_enabled_ = false;
  bool in_run_ = false;
  // The cost model's price of each step of the run: where its steps differ in their
  // memory time alone (CostModel::decode_run_memory_costs), what they share and each
  // one's memory time; else each whole cost.
  bool run_shares_costs_ = false;
  StepCost run_shared_cost_;
  std::vector<Tick> run_memory_ns_;
  std::vector<StepCost> run_costs_;
  // The run's first run_steps_ entries of run_ends_ and run_memory_ns_, which keep their
  // size (kMostRunSteps) from run to run, so that a run writes only what it prices.
  std::size_t run_steps_ = 0;
  // The run's start, then each step's end, extras included: run_step_begin(k) and
  // run_step_end(k) read it.
  std::vector<Tick> run_ends_;
  Tick run_step_begin(std::size_t k) const { return run_ends_[k]; }
  Tick run_step_end(std::size_t k) const { return run_ends_[k + 1]; }
  bool run_step_started_ = false;    // run_step_ has started (start_quiet_step)
  Tick run_extra_ns_ = 0;            // each step's extras (prepare_step's overheads)
  std::size_t run_step_ = 0;         // the run's step in flight
  bool run_ends_due_ = false;        // the run's last step is its first due request's
  // The run's last step is one at which requests are due for their last token alone
  // (LazyDecodes::due_are_last_tokens): a quiet step, after which they leave.
  bool run_ends_finishing_ = false;
  EvenShareUnits run_share_units_{1};  // each decode's share of a run's step (apply_quiet_steps)
  std::int64_t run_seqs_ = 0;          // the run's decodes, and their context at its start:
  std::int64_t run_context_sum_ = 0;   // step k's shape is (seqs, context + k x seqs)
  // The first step a submit cut off the run, priced: the decode work of the step that
  // takes its place, whose price account_step_start needs (begin_step), where it matches.
  KnownDecodeCost cut_step_;
  SwapSpace swap_;
  KvTierLink tier_link_;  // with KV tiers (set_kv_tiers)
  SpeculativeDecoding speculation_;  // used only with config_.speculative.enabled
  std::optional<LoraAdapterCache> lora_cache_;  // with config_.lora.enabled
  LoraLoadCost lora_cost_;                      // set_lora_load_cost
  bool hand_over_after_prefill_ = false;
  LoadChangeLog* load_log_ = nullptr;
  // Buffers kept between steps so that a step does not allocate.
  std::vector<RequestState*> scratch_;  // the scheduler's copy of running_
  std::vector<RequestState*> done_;     // requests leaving at a step's end
};

}  // namespace servesim
