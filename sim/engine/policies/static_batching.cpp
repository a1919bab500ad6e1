// FasterTransformer-style static batching: a batch is formed only when the replica is
// empty, runs all its prompts in one step, then decodes until its last request finishes;
// requests arriving meanwhile wait for the next batch. Each request of a batch reserves
// KV for its whole sequence (prompt + output) when it joins, as FasterTransformer
// allocates its cache for the maximum length, so a batch never preempts.
#include <algorithm>

#include "sim/engine/scheduler.h"

namespace servesim {
namespace {

class StaticScheduler final : public Scheduler {
 public:
  void schedule(SchedulerState& s, StepPlan& plan) override {
    if (s.running.empty()) {
      form_batch(s, plan);
      return;
    }
    // The batch decodes; nobody joins until it is empty. (No budget: the batch fit it.)
    std::int64_t unlimited = 0;
    if (sched::schedule_running_whole(s, plan, unlimited, /*chunked=*/false, /*use_budget=*/false)) return;
    for (std::size_t i = 0; i < s.running.size();) {
      RequestState& r = *s.running[i];
      if (!sched::allocate_or_preempt(s, plan, r, r.remaining())) break;  // reserved: never fails
      sched::add_chunk(plan, r, r.remaining());
      ++i;
    }
  }

  bool keeps_decodes_lazy() const override { return true; }

  const char* cannot_ever_schedule(const RequestState& r, const EngineConfig& c) const override {
    // The whole prompt runs in the batch's first step.
    return r.remaining() > c.max_batched_tokens ? "prompt_exceeds_max_batched_tokens" : nullptr;
  }

 private:
  // Whole prompts in arrival order while the sequence cap, the token budget and the
  // full-sequence KV reservation allow.
  static void form_batch(SchedulerState& s, StepPlan& plan) {
    std::int64_t budget = s.config.max_batched_tokens;
    const std::int64_t free_at_start = s.kv.free_blocks();
    std::int64_t reserved_blocks = 0;
    while (!s.waiting.empty() && s.has_seq_slot()) {
      RequestState& r = *s.waiting.front();
      sched::begin_admission(s, r);  // a cached prefix shrinks what is left to compute
      const std::int64_t n = r.remaining();
      const std::int64_t whole = s.kv.blocks_for(r.max_kv_tokens());
      if (n > budget || reserved_blocks + whole > free_at_start) break;
      if (!s.kv.allocate(r, n)) break;
      s.waiting.pop_front();
      r.status = RequestStatus::running;
      s.running.push_back(&r);
      sched::add_chunk(plan, r, n);
      budget -= n;
      reserved_blocks += whole;
    }
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_static_scheduler() { return std::make_unique<StaticScheduler>(); }

}  // namespace servesim
