#include <algorithm>

#include "sim/core/assert.h"
#include "sim/engine/policy_names.h"
#include "sim/engine/scheduler.h"

namespace servesim {

std::unique_ptr<Scheduler> make_continuous_scheduler();
std::unique_ptr<Scheduler> make_chunked_prefill_scheduler();
std::unique_ptr<Scheduler> make_static_scheduler();
std::unique_ptr<Scheduler> make_decode_priority_scheduler();
std::unique_ptr<Scheduler> make_priority_scheduler();
std::unique_ptr<Scheduler> make_inflight_scheduler();
std::unique_ptr<Scheduler> make_prefill_first_scheduler();

Registry<SchedulerFactory> make_policy_registry() {
  Registry<SchedulerFactory> r("scheduling policy");
  r.add("continuous", "Orca/vLLM v0: iteration-level batching; whole prompts first, then decode steps",
        make_continuous_scheduler);
  r.add("chunked-prefill", "Sarathi-Serve/vLLM v1: running decodes first, prompt chunks fill the token budget",
        make_chunked_prefill_scheduler);
  r.add("static", "FasterTransformer: a batch of whole prompts runs to completion before the next starts",
        make_static_scheduler);
  r.add("decode-priority", "decodes never wait; new requests join only while decodes are below decode_target_batch",
        make_decode_priority_scheduler);
  r.add("priority", "chunked-prefill with the waiting queue by class priority, then arrival (vLLM's priority policy)",
        make_priority_scheduler);
  r.add("inflight", "TensorRT-LLM in-flight batching: decodes first, then whole prompts that fit the budget, same step",
        make_inflight_scheduler);
  r.add("prefill-first", "SGLang: prompt chunks run in prefill-only steps whenever any are waiting, else every decode",
        make_prefill_first_scheduler);
  return r;
}

std::vector<std::string> scheduling_policy_names() { return make_policy_registry().entry_names(); }

namespace sched {

void add_chunk(StepPlan& plan, RequestState& request, std::int64_t n) {
  SS_ASSERT(n > 0 && n <= request.remaining(), "chunk larger than the request's remaining tokens");
  plan.chunks.push_back(ScheduledChunk{&request, n});
  if (request.in_prefill() || n > 1) {
    // Recompute after preemption covers prompt and earlier outputs: it is prefill work.
    const bool ends_prompt = request.num_computed_tokens + n == request.num_tokens();
    plan.shape.prefills.push_back(PrefillChunk{n, request.num_computed_tokens, ends_prompt && request.spec.output_tokens > 0});
  } else {
    plan.shape.decode_seqs += 1;
    plan.shape.decode_context_sum += request.num_computed_tokens;
  }
}

RequestState* preempt_newest(SchedulerState& state, StepPlan& plan) {
  SS_ASSERT(!state.running.empty(), "preemption with nothing running");
  RequestState* victim = state.running.back();
  preempt(state, plan, *victim);
  return victim;
}

bool schedule_running_whole(SchedulerState& state, StepPlan& plan, std::int64_t& budget, bool chunked,
                            bool use_budget) {
  return state.lazy != nullptr && state.lazy->plan_running(state, plan, budget, chunked, use_budget);
}

void make_all_explicit(SchedulerState& state) {
  if (state.lazy) state.lazy->make_all_explicit(state.running);
}

void preempt(SchedulerState& state, StepPlan& plan, RequestState& victim_ref) {
  RequestState* victim = &victim_ref;
  const auto at = std::find(state.running.begin(), state.running.end(), victim);
  SS_ASSERT(at != state.running.end(), "preempting a request that is not running");
  if (state.lazy && victim->lazy.owner == state.lazy) {
    // A lazy decode already counted in the plan (schedule_running_whole) leaves it.
    state.lazy->make_explicit(*victim);
    if (plan.lazy_decodes > 0) {
      plan.lazy_decodes -= 1;
      plan.lazy_context_sum -= victim->num_computed_tokens;
      plan.shape.decode_seqs -= 1;
      plan.shape.decode_context_sum -= victim->num_computed_tokens;
    }
  }
  if (state.lazy) state.lazy->note_left_running(*victim);
  state.running.erase(at);  // keeps the others' order, which is the victim order
  // If the victim was already planned this step, take its chunk back out.
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    if (plan.chunks[i].request != victim) continue;
    plan.chunks.erase(plan.chunks.begin() + static_cast<std::ptrdiff_t>(i));
    // Rebuild the shape: rare path, correctness over speed. The lazy decodes stay.
    StepPlan tmp;
    for (const auto& c : plan.chunks) add_chunk(tmp, *c.request, c.num_tokens);
    plan.shape = tmp.shape;
    plan.shape.decode_seqs += plan.lazy_decodes;
    plan.shape.decode_context_sum += plan.lazy_context_sum;
    break;
  }
  state.kv.free(*victim);
  victim->recover_tokens = std::max(victim->recover_tokens, victim->num_computed_tokens);
  // Swap keeps the progress if host memory has room; a request that is still swapped out
  // (swapped in for this step's plan, then preempted again) simply stays there.
  const std::int64_t host_blocks = state.kv.blocks_for(victim->num_computed_tokens);
  const bool swap = state.config.preemption_mode == PreemptionMode::swap && state.swap != nullptr;
  if (victim->swapped_blocks() > 0) {
    // still in host memory: nothing moves
  } else if (swap && victim->num_computed_tokens > 0 && state.swap->take(host_blocks)) {
    state.kv.note_swapped_out(*victim, host_blocks);
    plan.swap_out_tokens += victim->num_computed_tokens;
  } else {
    victim->num_computed_tokens = 0;
  }
  victim->status = RequestStatus::waiting;
  victim->preemptions += 1;
  state.waiting.push_front(victim);
  plan.preempted.push_back(victim);
}

bool allocate_or_preempt(SchedulerState& state, StepPlan& plan, RequestState& request, std::int64_t n) {
  while (!state.kv.allocate(request, n)) {
    RequestState* victim = preempt_newest(state, plan);
    if (victim == &request) return false;
  }
  return true;
}

void begin_admission(SchedulerState& state, RequestState& request) {
  // Only a request with no KV anywhere matches: a swapped-out one brings its own back.
  if (!state.kv.prefix_caching() || request.num_blocks() > 0 || request.num_computed_tokens > 0) return;
  state.kv.match_prefix(request);
}

}  // namespace sched
}  // namespace servesim
