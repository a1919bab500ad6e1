// Decode-priority: running requests always compute first, so decodes are never stalled
// behind a prompt, and new requests join only in a step that starts with fewer than
// `decode_target_batch` running decodes (requests past their prompt). Prompts are then
// admitted, chunked, until the token budget, max_num_seqs or the KV cache stops them.
//
// So prefills come in bursts that refill the decode batch instead of interrupting it for
// every arrival: with a target of 1 a batch is formed only when no request decodes (static
// batching, but chunked), with a target of max_num_seqs it is chunked-prefill.
#include <algorithm>

#include "sim/engine/batch_filler.h"

namespace servesim {
namespace {

class DecodePriorityScheduler final : public Scheduler {
 public:
  bool keeps_decodes_lazy() const override { return true; }

  void schedule(SchedulerState& s, StepPlan& plan) override {
    const auto decodes = std::count_if(s.running.begin(), s.running.end(),
                                       [](const RequestState* r) { return !r->in_prefill(); });
    std::int64_t budget = s.config.max_batched_tokens;
    if (sched::schedule_running(s, plan, budget)) return;  // memory is short: admit no one
    if (decodes >= s.config.decode_target()) return;       // the decode batch is full enough
    sched::admit_waiting(s, plan, budget, /*whole_prompt=*/false);
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_decode_priority_scheduler() {
  return std::make_unique<DecodePriorityScheduler>();
}

}  // namespace servesim
