#include "sim/engine/replica.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/engine/batch_filler.h"

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
  const std::int64_t need = state.kv.blocks_for(head.num_computed_tokens + n) - head.num_blocks;
  if (need > state.kv.free_blocks() || !sched::admission_allows(state, head, n)) return HeadBlock::kv_cache;
  if (budget_left < full) return HeadBlock::token_budget;
  return HeadBlock::compute;
}

// A run of equal inter-token gaps of one class, not yet given to the metrics: continuing
// decodes of one step all waited the same gap (the previous step), so a step's gaps come
// in a few runs. Each sketch still sees the same values in the same order, and it folds
// equal consecutive values together anyway, so the summary is bit-identical to adding
// them one by one; what is saved is a call and two sketch updates per token.
struct ItlRun {
  int class_index = -1;
  Tick gap_ns = 0;
  std::int64_t count = 0;
  void add(MeasurementListener& m, int cls, Tick gap) {
    if (count > 0 && (cls != class_index || gap != gap_ns)) flush(m);
    class_index = cls;
    gap_ns = gap;
    ++count;
  }
  void flush(MeasurementListener& m) {
    if (count > 0) m.on_token_gaps(class_index, gap_ns, count);
    count = 0;
  }
};

}  // namespace

Replica::Replica(Simulator& sim, int pool_index, int replica_index, const EngineConfig& config,
                 std::int64_t kv_blocks, std::unique_ptr<Scheduler> scheduler,
                 std::shared_ptr<const CostModel> cost_model, MeasurementListener& measurements,
                 ReplicaListener& listener, std::int64_t max_context_tokens)
    : sim_(sim),
      pool_index_(pool_index),
      replica_index_(replica_index),
      config_(config),
      kv_(kv_blocks, config.block_size, config.prefix_cache),
      scheduler_(std::move(scheduler)),
      cost_model_(std::move(cost_model)),
      measurements_(measurements),
      listener_(listener),
      max_context_tokens_(max_context_tokens),
      lazy_(kv_, measurements),
      lazy_enabled_(scheduler_->keeps_decodes_lazy() && !config.speculative.enabled),
      runs_enabled_(lazy_enabled_) {}

SameTimeOrder Replica::step_end_order() const {
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
  if (const char* why = apply_context_limit(r)) return reject(r, why);  // or truncates it
  if (kv_.blocks_for(r.max_kv_tokens()) > kv_.total_blocks()) return reject(r, "exceeds_kv_capacity");
  if (const char* why = scheduler_->cannot_ever_schedule(r, config_)) return reject(r, why);
  interrupt_decode_run();  // the stretch is quiet no more: its step in flight is its last
  r.status = RequestStatus::waiting;
  waiting_.push_back(&r);
  note_load_change();  // maybe_start_step returns at once while a step runs
  note_state();
  maybe_start_step();
}

void Replica::maybe_start_step() {
  if (busy_ || held_) return;
  plan_.clear();
  if (lazy_enabled_) lazy_.make_due_explicit();  // last tokens, blocks to register
  if (runs_enabled_ && start_decode_run()) return;  // a quiet stretch as one event (decode_run.cpp)
  SchedulerState state{waiting_, running_, kv_, scheduling_config(), &swap_, &scratch_,
                       lazy_enabled_ ? &lazy_ : nullptr};
  const std::size_t running_before = running_.size();
  scheduler_->schedule(state, plan_);
  if (lazy_enabled_) {
    // Admissions were appended; without them (and without preemptions) the list is as it was.
    if (running_.size() != running_before || !plan_.preempted.empty()) lazy_.note_admitted(running_);
    SS_ASSERT(plan_.lazy_decodes == lazy_.count(), "a step left its lazy decodes out");
  }
  kv_.drop_unadmitted_matches();  // prefix hits of requests the policy did not admit
  if (!waiting_.empty()) listener_.on_head_blocked(why_head_waits(state, plan_));
  stats_.preemptions += static_cast<std::int64_t>(plan_.preempted.size());
  // Load marks: here, before every listener call (a callback may route: a closed loop, a
  // disaggregated hand-over) and at the end, so a router never reads a stale snapshot.
  note_load_change();
  if (plan_.empty()) {
    SS_ASSERT(waiting_.empty() || !running_.empty(), "replica idle with waiting work it can never start");
    return;
  }
  const Tick now = sim_.now();
  const StepCost cost = begin_step(now, nullptr);
  for (const auto& observe : step_observers_) observe(replica_index_, now, plan_, cost);
  sim_.schedule_in(cost.total_ns, [this] { on_step_end(); }, WarmUp{&Replica::warm_step_end, this}, step_end_order());
}

StepCost Replica::begin_step(Tick now, const StepCost* priced) {
  // CPU overheads, swap, speculation (plan_ parts); marks first steps (the listener's
  // on_first_scheduled) and counts the work for account_step_start.
  Tick extra_ns = prepare_step(now);
  StepCost cost = priced ? *priced : cost_model_->step_cost(plan_.shape);
  SS_ASSERT(cost.total_ns >= 1, "a step must take time");
  if (config_.async_scheduling && plan_.overhead_ns > 0) {
    // The CPU work runs while the GPU runs the step before (vLLM's async scheduling, the
    // overlap schedulers of SGLang and TensorRT-LLM): only what outlasts the GPU's part
    // of the step (kernels, swap, draft passes) delays it.
    const Tick hidden = std::min(plan_.overhead_ns, cost.total_ns + plan_.swap_ns + plan_.draft_ns);
    plan_.overhead_ns -= hidden;
    stats_.overhead_ns -= hidden;
    extra_ns -= hidden;
  }
  cost.total_ns += extra_ns;
  split_ = account_step_start(plan_, now, cost.total_ns, extra_ns, cost, *cost_model_);
  if (plan_.lazy_decodes > 0) {
    lazy_.charge_step_start(split_.decode_units, now);
    stats_.lazy_decode_tokens += plan_.lazy_decodes;
  }
  note_utilisation(split_);
  busy_ = true;
  step_start_ns_ = now;
  note_load_change();
  return cost;
}

// With many replicas a request's state is cold by its step's end (every other replica
// stepped meanwhile), and on_step_end's first touch of each was a third of a 1,024-replica
// run. The simulator calls this for the events ahead of the one it runs (WarmUp), one
// level of the chain replica -> chunk list -> request states per stage.
void Replica::warm_step_end(const void* replica, int stage) {
  // The first chunks only: a big batch's loop runs long enough for the hardware to keep
  // ahead of it, and prefetching hundreds of requests ahead slowed busy runs by 9%.
  constexpr std::size_t kChunks = 16;
  const auto& self = *static_cast<const Replica*>(replica);
  if (stage == 0) {
    const char* object = static_cast<const char*>(replica);
    for (std::size_t at = 0; at < sizeof(Replica); at += 64) __builtin_prefetch(object + at);
    return;
  }
  const std::size_t chunks = std::min(self.plan_.chunks.size(), kChunks);
  if (stage == 1) {
    const char* list = reinterpret_cast<const char*>(self.plan_.chunks.data());
    for (std::size_t at = 0; at < chunks * sizeof(ScheduledChunk); at += 64) __builtin_prefetch(list + at);
    return;
  }
  for (std::size_t i = 0; i < chunks; ++i) {
    // The lines of RequestState a step's end reads: its counters and its attribution.
    const char* state = reinterpret_cast<const char*>(self.plan_.chunks[i].request);
    static_assert(sizeof(RequestState) >= 256);
    for (int line = 0; line < 4; ++line) __builtin_prefetch(state + 64 * line, 1);
  }
}

void Replica::on_step_end() {
  const Tick now = sim_.now();
  end_step_counts(now);
  bool any_finished = false;
  ItlRun itl;
  for (const auto& c : plan_.chunks) {
    RequestState& r = *c.request;
    account_chunk_end(c, split_, step_start_ns_, now);  // before its tokens are emitted
    const std::int64_t computed_before = r.num_computed_tokens;
    r.num_computed_tokens += c.num_tokens;
    note_recovery(r, now);
    kv_.cache_source_blocks_at_step_end(r, computed_before);  // now they are hits for others
    if (r.remaining() > 0) continue;  // a prompt chunk that does not end the prompt
    if (r.spec.output_tokens == 0) {  // prefill-only (embedding) request
      r.status = RequestStatus::finished;
      any_finished = true;
      continue;
    }
    r.num_output_done += 1;  // the step samples one token at the end of what it computed
    if (r.first_token_ns < 0) {
      r.first_token_ns = now;
      if (hand_over_after_prefill_ && r.num_output_done < r.spec.output_tokens) {
        r.last_token_ns = now;
        r.status = RequestStatus::finished;  // leaves running below, handed over not finished
        any_finished = true;
        continue;
      }
    } else {
      itl.add(measurements_, r.spec.class_index, now - r.last_token_ns);
      r.acct.max_itl_ns = std::max(r.acct.max_itl_ns, now - r.last_token_ns);
    }
    r.last_token_ns = now;
    if (c.spec_accepted > 0) {
      itl.flush(measurements_);  // emit_accepted records gaps too: keep their order
      emit_accepted(r, c.spec_accepted);
    }
    if (r.num_output_done == r.spec.output_tokens) {
      r.status = RequestStatus::finished;
      any_finished = true;
    }
  }
  itl.flush(measurements_);
  if (lazy_enabled_) {
    // Steady decodes from now on advance as a count. Before any listener call: one may
    // submit a request and so start the next step from inside this one.
    for (const auto& c : plan_.chunks)
      if (lazy_.eligible(*c.request)) lazy_.make_lazy(*c.request);
  }
  if (any_finished) {
    // Compact in place so running order (which is the preemption order) is kept.
    std::vector<RequestState*>& done = done_;
    if (lazy_enabled_) {
      remove_finished_by_seq(done);
    } else {
      auto keep = std::stable_partition(running_.begin(), running_.end(), [](RequestState* r) {
        return r->status != RequestStatus::finished;
      });
      done.assign(keep, running_.end());
      running_.erase(keep, running_.end());
    }
    for (RequestState* r : done) {
      if (lazy_enabled_) lazy_.note_left_running(*r);
      if (r->num_output_done < r->spec.output_tokens && r->spec.output_tokens > 0) {
        kv_.free(*r);  // the decode replica holds it from now on
        note_load_change();
        listener_.on_prefill_handed_over(*r, now);
      } else {
        finish(*r);
      }
    }
  }
  note_state();  // the state the replica sits in until its next step, if it has one
  maybe_start_step();
}

void Replica::remove_finished_by_seq(std::vector<RequestState*>& done) {
  // The finished requests are explicit chunks of this step, and running_ is in running_seq
  // order: each is found by a binary search, so the lazy decodes are not visited.
  done.clear();
  for (const auto& c : plan_.chunks)
    if (c.request->status == RequestStatus::finished) done.push_back(c.request);
  std::sort(done.begin(), done.end(),
            [](const RequestState* a, const RequestState* b) { return a->running_seq < b->running_seq; });
  std::size_t out = 0, from = 0;
  for (const RequestState* r : done) {
    const auto at = std::lower_bound(running_.begin() + static_cast<std::ptrdiff_t>(from), running_.end(), r->running_seq,
                                     [](const RequestState* x, std::int64_t seq) { return x->running_seq < seq; });
    SS_ASSERT(at != running_.end() && *at == r, "a finished request is not in the running list");
    const auto i = static_cast<std::size_t>(at - running_.begin());
    for (; from < i; ++from) running_[out++] = running_[from];
    from = i + 1;
  }
  for (; from < running_.size(); ++from) running_[out++] = running_[from];
  running_.resize(out);
}

void Replica::end_step_counts(Tick now) {
  busy_ = false;
  stats_.steps += 1;
  stats_.busy_ns += now - step_start_ns_;
  SS_ASSERT(now - step_start_ns_ == split_.total_ns, "a step ended at another time than it was priced for");
  if (lazy_enabled_) lazy_.charge_step_end(split_, now);  // the lazy decodes' tokens and gaps
}

void Replica::finish(RequestState& r) {
  kv_.free(r);
  note_load_change();
  // The client has the answer only after the front end: a session's next turn or a closed
  // loop's next request starts from there.
  const Tick frontend_ns = config_.overheads.frontend_for(r.spec.prompt_tokens);
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
  const auto it = std::find(waiting_.begin(), waiting_.end(), &r);
  if (it == waiting_.end()) return false;
  SS_ASSERT(r.num_blocks == 0, "a never-scheduled request holds KV blocks");
  waiting_.erase(it);
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
}

}  // namespace servesim
