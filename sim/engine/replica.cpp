#include "sim/engine/replica.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/engine/batch_filler.h"
#include "sim/engine/context_limit.h"

namespace servesim {

const char* head_block_name(HeadBlock why) {
  switch (why) {
    case HeadBlock::max_num_seqs: return "max_num_seqs";
    case HeadBlock::token_budget: return "token_budget";
    case HeadBlock::kv_cache: return "kv_cache";
    case HeadBlock::compute: return "compute";
  }
  return "compute";
}

namespace {

// After the policy planned a step with `state.waiting` non-empty: the first limit, in the
// order admit_waiting checks them, that keeps the head out. O(1) but for the reservation
// rule (admission_allows), which costs what one admission attempt costs.
HeadBlock why_head_waits(const SchedulerState& state, const StepPlan& plan) {
  const EngineConfig& c = state.config;
  if (!state.has_seq_slot()) return HeadBlock::max_num_seqs;
  const std::int64_t budget_left = c.max_batched_tokens - sched::planned_tokens(plan);
  if (budget_left <= 0) return HeadBlock::token_budget;
  const RequestState& head = *state.waiting.front();
  // The head's next chunk with a whole budget; the part of it the budget left could take.
  std::int64_t full = std::min(head.remaining(), c.max_batched_tokens);
  if (c.prefill_chunk_tokens > 0) full = std::min(full, c.prefill_chunk_tokens);
  const std::int64_t n = std::min(full, budget_left);
  const std::int64_t need = state.kv.blocks_for(head.num_computed_tokens + n) - head.num_blocks();
  if (need > state.kv.free_blocks() || !sched::admission_allows(state, head, n)) return HeadBlock::kv_cache;
  if (budget_left < full) return HeadBlock::token_budget;
  return HeadBlock::compute;
}

}  // namespace

Replica::Replica(Simulator& sim, int pool_index, int replica_index, const EngineConfig& config,
                 std::int64_t kv_blocks, std::unique_ptr<Scheduler> scheduler,
                 std::shared_ptr<const CostModel> cost_model, MeasurementListener& measurements,
                 ReplicaListener& listener, std::int64_t max_context_tokens)
    : sim_(sim),
      step_timer_(sim.add_timer(&Replica::fire_step_end, this, WarmUp{&Replica::warm_step_end, this})),
      pool_index_(pool_index),
      replica_index_(replica_index),
      step_end_order_(make_step_end_order()),
      config_(config),
      kv_(kv_blocks, config.block_size, config.prefix_cache),
      scheduler_(std::move(scheduler)),
      cost_model_(std::move(cost_model)),
      measurements_(measurements),
      listener_(listener),
      max_context_tokens_(max_context_tokens),
      lazy_(kv_, measurements),
      // Multi-LoRA visits every running request's adapter each step (load_adapters).
      lazy_enabled_(scheduler_->keeps_decodes_lazy() && !config.speculative.enabled && !config.lora.enabled),
      runs_enabled_(lazy_enabled_) {
  if (config.lora.enabled) lora_cache_.emplace(config.lora);
}

void Replica::fire_step_end(void* replica) {
  auto& r = *static_cast<Replica*>(replica);
  if (r.in_run_) {
    r.end_decode_run();
  } else {
    r.on_step_end();
  }
}

SameTimeOrder Replica::make_step_end_order() const {
  // Pools in order, replicas in order within a pool (docs/ARCHITECTURE.md, "Conventions").
  SS_ASSERT(pool_index_ >= 0 && pool_index_ < (1 << 11) && replica_index_ >= 0 && replica_index_ < (1 << 20),
            "replica index out of the event order's range");
  return SameTimeOrder::early(static_cast<std::uint32_t>(pool_index_) << 20 | static_cast<std::uint32_t>(replica_index_));
}

void Replica::submit(RequestState& r) {
  r.pool_index = pool_index_;
  r.replica_index = replica_index_;
  // Requests that could never finish here are turned away at once, with a reason, rather
  // than left to wait forever.
  if (const char* why = apply_context_limit(r, max_context_tokens_, config_)) return reject(r, why);  // or truncates it
  if (kv_.blocks_for(r.max_kv_tokens()) > kv_.total_blocks()) return reject(r, "exceeds_kv_capacity");
  if (const char* why = scheduler_->cannot_ever_schedule(r, config_)) return reject(r, why);
  if (r.frontend_ns < 0) r.frontend_ns = front_end_latency(r);  // not again after a hand-over
  interrupt_decode_run();  // the stretch is quiet no more: its step in flight is its last
  r.status = RequestStatus::waiting;
  if (arrives_late()) {
    arriving_.push_back(&r);
    note_load_change();
    note_state();
    return;  // a step is in flight or about to start: maybe_start_step comes at its end
  }
  waiting_.push_back(&r);
  note_load_change();  // maybe_start_step returns at once while a step runs
  note_state();
  maybe_start_step();
}

Tick Replica::front_end_latency(const RequestState& r) {
  const EngineOverheads& o = config_.overheads;
  Tick window_wait_ns = 0;
  if (o.frontend_tokenizer_batch_wait_ns > 0) {
    // AsyncMicrobatchTokenizer._batch_encode_loop (vllm/utils/async_utils.py): the first
    // prompt opens a window of batch_wait_timeout_s; prompts arriving before its deadline
    // join the batch, which is encoded at the deadline. A prompt at the deadline opens the
    // next one. (Its cap of 32 prompts per batch closes a window early only above 16,000
    // prompts per second per API server; not modelled.)
    const Tick now = sim_.now();
    if (now >= tokenizer_window_end_ns_) tokenizer_window_end_ns_ = now + o.frontend_tokenizer_batch_wait_ns;
    window_wait_ns = tokenizer_window_end_ns_ - now;
  }
  return o.frontend_for(r.spec.prompt_tokens) + window_wait_ns;
}

void Replica::take_arrivals() {
  waiting_.insert(waiting_.end(), arriving_.begin(), arriving_.end());
  arriving_.clear();
}

void Replica::maybe_start_step() {
  if (busy_ || held_) return;
  plan_.clear();
  added_.clear();
  if (lazy_enabled_) lazy_.make_due_explicit();  // last tokens, blocks to register
  // A quiet stretch as one event (decode_run.cpp); arrivals join after this step's plan.
  if (runs_enabled_ && arriving_.empty() && start_decode_run()) return;
  // With speculation the budget leaves room for the running decodes' verify tokens.
  const EngineConfig& scheduling_config =
      config_.speculative.enabled ? speculation_.scheduling_config(config_, running_) : config_;
  SchedulerState state{waiting_, running_, kv_, scheduling_config, &swap_, &scratch_,
                       lazy_enabled_ ? &lazy_ : nullptr};
  const std::size_t running_before = running_.size();
  scheduler_->schedule(state, plan_);
  if (lazy_enabled_) {
    // Admissions were appended; without them (and without preemptions) the list is as it was.
    if (running_.size() != running_before || !plan_.preempted.empty()) lazy_.note_admitted(running_);
    SS_ASSERT(plan_.lazy_decodes == lazy_.count(), "a step left its lazy decodes out");
  }
  kv_.drop_unadmitted_matches();  // prefix hits of requests the policy did not admit
  stats_.preemptions += static_cast<std::int64_t>(plan_.preempted.size());
  // Async scheduling planned this step while the step before it ran, before the requests
  // in arriving_ came: they join the next plan (vLLM's EngineCore.step_with_batch_queue
  // schedules step n+1 before it blocks on step n's output, and only then reads its input
  // queue; SGLang's event_loop_overlap and TensorRT-LLM's overlap executor loop likewise
  // take new requests once an iteration, after launching the next batch). A step with
  // nothing to run is not launched, so then they are planned at once.
  if (plan_.empty() && !arriving_.empty()) {
    take_arrivals();
    return maybe_start_step();
  }
  if (!waiting_.empty()) listener_.on_head_blocked(pool_index_, why_head_waits(state, plan_));
  if (!arriving_.empty()) take_arrivals();
  // Load marks: here, before every listener call (a callback may route: a closed loop, a
  // disaggregated hand-over) and at the end, so a router never reads a stale snapshot.
  note_load_change();
  if (plan_.empty()) {
    SS_ASSERT(waiting_.empty() || !running_.empty(), "replica idle with waiting work it can never start");
    return;
  }
  const Tick now = sim_.now();
  const StepCost cost = begin_step(now, nullptr);
  stepped_(replica_index_, now, plan_, cost);
  sim_.arm_timer(step_timer_, now + cost.total_ns, step_end_order());
}

StepCost Replica::begin_step(Tick now, const StepCost* priced) {
  // CPU overheads, swap, speculation (plan_ parts); marks first steps (the listener's
  // on_first_scheduled) and counts the work for account_step_start.
  Tick extra_ns = prepare_step(now);
  StepCost cost = priced ? *priced : cost_model_->step_cost(plan_.shape);
  SS_ASSERT(cost.total_ns >= 1, "a step must take time");
  if (config_.async_scheduling && added_.overhead_ns > 0) {
    // The CPU work runs while the GPU runs the step before (vLLM's async scheduling, the
    // overlap schedulers of SGLang and TensorRT-LLM): only what outlasts the GPU's part
    // of the step (kernels, swap, draft passes) delays it.
    const Tick hidden = std::min(added_.overhead_ns, cost.total_ns + added_.swap_ns + added_.draft_ns);
    added_.overhead_ns -= hidden;
    stats_.overhead_ns -= hidden;
    extra_ns -= hidden;
  }
  if (tier_link_.layerwise && added_.kv_load_ns > 0) {
    // LMCache loads layer by layer under the step's kernels: only what outlasts them delays it.
    const Tick hidden = std::min(added_.kv_load_ns, cost.total_ns);
    added_.kv_load_ns -= hidden;
    extra_ns -= hidden;
  }
  stats_.kv_load_ns += added_.kv_load_ns;
  cost.total_ns += extra_ns;
  split_ = account_step_start(plan_, added_, now, cost.total_ns, extra_ns, cost, *cost_model_, cut_step_);
  cut_step_.seqs = -1;  // once: the next such step follows another cut
  mark_step_started(now, cost);
  return cost;
}

void Replica::finish(RequestState& r) {
  kv_.free(r);
  note_load_change();
  // The client has the answer only after the front end: a session's next turn or a closed
  // loop's next request starts from there.
  const Tick frontend_ns = std::max<Tick>(r.frontend_ns, 0);
  measurements_.on_request_completed(r, sim_.now(), frontend_ns);
  listener_.on_request_done(r, sim_.now() + frontend_ns);
}

void Replica::reject(RequestState& r, const char* reason) {
  r.status = RequestStatus::finished;
  note_load_change();
  measurements_.on_request_rejected(r, sim_.now(), reason);
  listener_.on_request_done(r, sim_.now());
}

bool Replica::withdraw_unscheduled(RequestState& r, const char* reason) {
  if (r.first_scheduled_ns >= 0 || r.status != RequestStatus::waiting) return false;
  if (const auto late = std::find(arriving_.begin(), arriving_.end(), &r); late != arriving_.end()) {
    arriving_.erase(late);
  } else {
    const auto it = std::find(waiting_.begin(), waiting_.end(), &r);
    if (it == waiting_.end()) return false;
    waiting_.erase(it);
  }
  SS_ASSERT(r.num_blocks() == 0, "a never-scheduled request holds KV blocks");
  reject(r, reason);
  note_state();
  return true;
}

void Replica::for_each_request(const std::function<void(RequestState&)>& fn) {
  catch_up();
  for (RequestState* r : running_) {
    lazy_.sync(*r);  // its counters up to date
    fn(*r);
  }
  for (RequestState* r : waiting_) fn(*r);
  for (RequestState* r : arriving_) fn(*r);
}

Replica::LoraLoad Replica::lora_load(int adapter) const {
  // A router's scan, only for a router that reads adapters (lora-affinity): the running set
  // holds at most max_num_seqs requests, and its distinct adapters at most max_loras.
  LoraLoad load;
  const LoraStepAdapters running(running_, config_.lora.max_loras);
  load.running_adapters = running.count();
  load.names_adapter = running.has(adapter);
  const auto names = [adapter](const RequestState* r) { return r->spec.lora_adapter == adapter; };
  if (!load.names_adapter)
    load.names_adapter =
        std::any_of(waiting_.begin(), waiting_.end(), names) || std::any_of(arriving_.begin(), arriving_.end(), names);
  return load;
}

}  // namespace servesim
