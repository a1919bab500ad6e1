#pragma once
// A scheduling policy fills one step's token budget (`max_batched_tokens`) and sequence cap
// (`max_num_seqs`) from the replica's running and waiting requests, as vLLM v1 does:
// every entry of the plan is "compute k more tokens of this request". Policies differ only
// in the order in which they fill the budget. A new policy is one file plus one line in
// make_policy_registry() (scheduler_common.cpp).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/registry.h"
#include "sim/engine/engine_config.h"
#include "sim/engine/kv_cache_manager.h"
#include "sim/engine/lazy_decodes.h"
#include "sim/engine/request_state.h"
#include "sim/engine/swap_space.h"
#include "sim/model/batch_shape.h"

namespace servesim {

struct ScheduledChunk {
  RequestState* request;
  std::int64_t num_tokens;  // tokens computed for it this step (1 for a decode)
  // Speculative decoding: draft tokens the verify pass accepted, emitted at the step's end
  // on top of the decode's own token (set by the replica after scheduling).
  std::int64_t spec_accepted = 0;
};

// What a policy returns for a step (Scheduler::schedule fills it): the chunks to compute,
// their shape for the cost model, and what its preemptions did. What the replica adds
// before the step is priced is a StepAdditions (step_additions.h); the one change it makes
// to the plan itself is speculation's, which turns a speculating decode's chunk into a
// verify chunk (its spec_accepted, and the shape repriced: speculative.h).
struct StepPlan {
  std::vector<ScheduledChunk> chunks;
  BatchShape shape;                        // what the cost model prices
  std::vector<RequestState*> preempted;    // sent back to waiting during scheduling
  std::int64_t swap_out_tokens = 0;        // KV tokens its preemptions swapped out
  // Lazy decodes (sim/engine/lazy_decodes.h) in the step besides `chunks`: one token each,
  // counted in `shape` (decode_seqs, decode_context_sum) but not listed.
  std::int64_t lazy_decodes = 0;
  std::int64_t lazy_context_sum = 0;  // their computed tokens
  bool empty() const { return chunks.empty() && lazy_decodes == 0; }
  void clear() {
    chunks.clear();
    lazy_decodes = lazy_context_sum = 0;
    // Field by field: a fresh BatchShape would free the prefill list's memory, and the next
    // step with a prompt chunk would allocate it again.
    shape.prefills.clear();
    shape.decode_seqs = shape.decode_context_sum = shape.extra_sampled_tokens = 0;
    preempted.clear();
    swap_out_tokens = 0;
  }
};

// The replica state a policy may read and change. Requests in `running` hold KV blocks;
// requests in `waiting` hold none (preemption frees every GPU block; a swapped-out request
// keeps its progress in `swap`).
struct SchedulerState {
  std::deque<RequestState*>& waiting;
  std::vector<RequestState*>& running;
  KvCacheManager& kv;
  const EngineConfig& config;
  SwapSpace* swap = nullptr;  // host memory for preemption_mode swap; null: recompute only
  // A buffer the policy may use for a copy of `running` (kept by the replica between steps,
  // so the step loop does not allocate); null: the policy makes its own.
  std::vector<RequestState*>* scratch = nullptr;
  // The replica's lazy decodes, when the policy keeps_decodes_lazy(); null otherwise.
  // Some of `running` may then be lazy: their counters are stale, so the policy reads a
  // running request's counters only after sched::schedule_running_whole returned false
  // or sched::make_all_explicit ran (spec fields and status are always true; its blocks
  // are lazy->held_blocks(request), num_blocks only once it is explicit).
  LazyDecodes* lazy = nullptr;

  // Whether another request may join the running set: fewer than max_num_seqs run (the
  // one sequence cap every policy and the head-of-queue diagnosis check).
  bool has_seq_slot() const { return static_cast<int>(running.size()) < config.max_num_seqs; }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Fills `plan` (cleared by the caller). Postconditions: sum of tokens <= max_batched_tokens,
  // running.size() <= max_num_seqs, every scheduled request holds blocks for its tokens.
  virtual void schedule(SchedulerState& state, StepPlan& plan) = 0;
  // Whether the policy can ever run a prompt of this length (whole-prompt policies cannot
  // run one longer than the token budget). Returns a reason, or nullptr if it can.
  virtual const char* cannot_ever_schedule(const RequestState& request, const EngineConfig& config) const {
    (void)request;
    (void)config;
    return nullptr;
  }
  // Whether the policy follows SchedulerState::lazy's rule, so that the replica may keep
  // steady decodes lazy (sim/engine/lazy_decodes.h). Every step must then either schedule
  // every lazy decode (schedule_running_whole) or make them all explicit first; and a
  // step with nothing waiting and every running request lazy must plan the lazy decodes
  // alone and change nothing else in the policy, since a decode run (decode_run.cpp)
  // plans such steps without calling it.
  virtual bool keeps_decodes_lazy() const { return false; }
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>()>;
Registry<SchedulerFactory> make_policy_registry();

// Shared steps of the built-in policies.
namespace sched {
// The running pass when every running request can take its whole chunk (chunk_tokens()
// of what it has left when `chunked`, else all of it; within `budget` unless `use_budget`
// is false) and its KV blocks: plans it in running order with the lazy decodes as a count
// (LazyDecodes::plan_running) and returns true, budget spent. Returns false, planning
// nothing, when there is no lazy decode or it cannot vouch for that; every running
// request is explicit then, and the policy runs its own loop, exact as ever.
bool schedule_running_whole(SchedulerState& state, StepPlan& plan, std::int64_t& budget, bool chunked,
                            bool use_budget = true);
// Every lazy decode made explicit (for a step that leaves them out, or reads them).
void make_all_explicit(SchedulerState& state);
// Adds `n` tokens of `request` to the plan and to its batch shape.
void add_chunk(StepPlan& plan, RequestState& request, std::int64_t n);
// Frees the newest running request's blocks and returns it to the front of the waiting
// queue for recompute (vLLM's victim order). Returns the victim.
RequestState* preempt_newest(SchedulerState& state, StepPlan& plan);
// Preempts running request `victim`: its planned chunk (if any) is taken back, its blocks
// freed, and it goes to the front of the waiting queue. With preemption_mode swap and room
// in host memory its computed tokens move there (plan.swap_out_tokens); otherwise they are
// dropped for recompute.
void preempt(SchedulerState& state, StepPlan& plan, RequestState& victim);
// Tokens `request` computes this step: what it has left, capped by the budget left and by
// prefill_chunk_tokens.
std::int64_t chunk_tokens(const SchedulerState& state, const RequestState& request, std::int64_t budget);
// Whether a waiting request may take blocks for `n` more tokens under the admission rules
// (watermark, kv_admission). Always true while nothing runs, so an idle replica can start.
bool admission_allows(const SchedulerState& state, const RequestState& request, std::int64_t n);
// Allocates KV for `n` more tokens of running request `request`, preempting the newest
// running requests as needed. Returns false if `request` itself had to be preempted.
bool allocate_or_preempt(SchedulerState& state, StepPlan& plan, RequestState& request, std::int64_t n);
// Call on a waiting request before computing its first chunk: with prefix caching, a request
// that has computed nothing takes its longest cached prefix (num_computed_tokens jumps to
// it, so remaining() shrinks). If the policy then does not admit it, the replica undoes
// this after the pass (KvCacheManager::drop_unadmitted_matches). A no-op without caching.
void begin_admission(SchedulerState& state, RequestState& request);
}  // namespace sched

}  // namespace servesim
