// TensorRT-LLM in-flight batching without chunked context (its default): every running
// request decodes first, then waiting prompts join the same step whole, in arrival order,
// while they fit what is left of the token budget (max_num_tokens there).
#include "sim/engine/batch_filler.h"

namespace servesim {
namespace {

class InflightScheduler final : public Scheduler {
 public:
  bool keeps_decodes_lazy() const override { return true; }

  void schedule(SchedulerState& s, StepPlan& plan) override {
    std::int64_t budget = s.config.max_batched_tokens;
    if (sched::schedule_running(s, plan, budget)) return;
    sched::admit_waiting(s, plan, budget, /*whole_prompt=*/true);
  }

  const char* cannot_ever_schedule(const RequestState& r, const EngineConfig& c) const override {
    // A prompt, or its recompute with the outputs after a preemption, runs in one step.
    return r.max_kv_tokens() > c.max_batched_tokens ? "sequence_exceeds_max_batched_tokens" : nullptr;
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_inflight_scheduler() { return std::make_unique<InflightScheduler>(); }

}  // namespace servesim
