// Sarathi-Serve / vLLM v1: one token budget per step. Running requests go first (a decode
// takes one token, an unfinished prompt takes what is left of the budget), then waiting
// requests are admitted in order with as much of their prompt as still fits. Long prompts
// are thus chunked, and decodes are never stalled behind a whole prompt.
#include <algorithm>

#include "sim/engine/batch_filler.h"
#include "sim/engine/scheduler.h"

namespace servesim {
namespace {

class ChunkedPrefillScheduler final : public Scheduler {
 public:
  void schedule(SchedulerState& s, StepPlan& plan) override {
    std::int64_t budget = s.config.max_batched_tokens;
    bool preempted = false;
    // Every running request whole, lazy decodes as a count; else the loop below.
    const bool whole = sched::schedule_running_whole(s, plan, budget, /*chunked=*/true);
    for (std::size_t i = 0; !whole && i < s.running.size() && budget > 0;) {
      RequestState& r = *s.running[i];
      const std::int64_t n = sched::chunk_tokens(s, r, budget);  // prefill_chunk_tokens caps it
      const std::size_t before = s.running.size();
      if (!sched::allocate_or_preempt(s, plan, r, n)) {
        preempted = true;
        break;  // r itself was the newest and went back to waiting
      }
      preempted = preempted || s.running.size() != before;
      sched::add_chunk(plan, r, n);
      budget -= n;
      ++i;
    }
    // vLLM v1 admits no new request in a step that had to preempt: memory is short.
    if (preempted) return;
    // Then waiting requests in order, each with as much of its prompt as fits; the first
    // that does not fit stops the rest (first-come first-served: no skipping ahead).
    sched::admit_waiting(s, plan, budget, /*whole_prompt=*/false);
  }

  bool keeps_decodes_lazy() const override { return true; }
};

}  // namespace

std::unique_ptr<Scheduler> make_chunked_prefill_scheduler() { return std::make_unique<ChunkedPrefillScheduler>(); }

}  // namespace servesim
