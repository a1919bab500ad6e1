// Orca / vLLM v0 iteration-level batching: a step is either a prefill step or a decode
// step. Whenever whole prompts can be admitted, the step runs only prefills (prefill-first,
// which is what makes TTFT good and ITL spiky under long prompts); otherwise every running
// request decodes one token.
#include <algorithm>

#include "sim/engine/scheduler.h"

namespace servesim {
namespace {

class ContinuousScheduler final : public Scheduler {
 public:
  void schedule(SchedulerState& s, StepPlan& plan) override {
    std::int64_t budget = s.config.max_batched_tokens;
    while (!s.waiting.empty() && s.has_seq_slot()) {
      RequestState& r = *s.waiting.front();
      sched::begin_admission(s, r);  // a cached prefix shrinks what is left to compute
      const std::int64_t n = r.remaining();  // the whole prompt (and outputs, on recompute)
      if (n > budget) break;
      if (!sched::admission_allows(s, r, n) || !s.kv.allocate(r, n)) break;
      s.waiting.pop_front();
      r.status = RequestStatus::running;
      s.running.push_back(&r);
      sched::add_chunk(plan, r, n);
      budget -= n;
    }
    if (!plan.empty()) {
      sched::make_all_explicit(s);  // a prefill step: the decodes wait
      return;
    }
    if (sched::schedule_running_whole(s, plan, budget, /*chunked=*/false)) return;
    for (std::size_t i = 0; i < s.running.size() && budget > 0;) {
      RequestState& r = *s.running[i];
      const std::int64_t n = r.remaining();
      if (n > budget) break;
      if (!sched::allocate_or_preempt(s, plan, r, n)) break;
      sched::add_chunk(plan, r, n);
      budget -= n;
      ++i;
    }
  }

  bool keeps_decodes_lazy() const override { return true; }

  const char* cannot_ever_schedule(const RequestState& r, const EngineConfig& c) const override {
    // Whole-prompt prefill, and recompute of prompt plus outputs after a preemption, must fit
    // one step's budget (vLLM v0 likewise required max_num_batched_tokens >= max_model_len).
    return r.max_kv_tokens() > c.max_batched_tokens ? "sequence_exceeds_max_batched_tokens" : nullptr;
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_continuous_scheduler() { return std::make_unique<ContinuousScheduler>(); }

}  // namespace servesim
