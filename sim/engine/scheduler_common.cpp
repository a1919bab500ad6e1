#include <algorithm>

#include "sim/core/assert.h"
#include "sim/engine/policy_names.h"
#include "sim/engine/scheduler.h"

namespace servesim {

std::unique_ptr<Scheduler> make_continuous_scheduler();
std::unique_ptr<Scheduler> make_chunked_prefill_scheduler();

Registry<SchedulerFactory> make_policy_registry() {
  Registry<SchedulerFactory> r("scheduling policy");
  r.add("continuous", "Orca/vLLM v0: iteration-level batching; whole prompts first, then decode steps",
        make_continuous_scheduler);
  r.add("chunked-prefill", "Sarathi-Serve/vLLM v1: running decodes first, prompt chunks fill the token budget",
        make_chunked_prefill_scheduler);
  return r;
}

std::vector<std::string> scheduling_policy_names() {
  std::vector<std::string> names;
  const auto registry = make_policy_registry();  // named: a temporary would die before the loop
  for (const auto& e : registry.entries()) names.push_back(e.name);
  return names;
}

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
  state.running.pop_back();
  // If the victim was already planned this step, take its chunk back out.
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    if (plan.chunks[i].request != victim) continue;
    plan.chunks.erase(plan.chunks.begin() + static_cast<std::ptrdiff_t>(i));
    // Rebuild the shape: rare path, correctness over speed.
    BatchShape rebuilt;
    StepPlan tmp;
    for (const auto& c : plan.chunks) add_chunk(tmp, *c.request, c.num_tokens);
    plan.shape = tmp.shape;
    break;
  }
  state.kv.free(*victim);
  victim->num_computed_tokens = 0;
  victim->status = RequestStatus::waiting;
  victim->preemptions += 1;
  state.waiting.push_front(victim);
  plan.preempted.push_back(victim);
  return victim;
}

bool allocate_or_preempt(SchedulerState& state, StepPlan& plan, RequestState& request, std::int64_t n) {
  while (!state.kv.allocate(request, n)) {
    RequestState* victim = preempt_newest(state, plan);
    if (victim == &request) return false;
  }
  return true;
}

}  // namespace sched
}  // namespace servesim
