// SGLang's default scheduler (no mixed chunks): a step is a prefill step whenever there is
// prompt work, else a decode step of every running request. A prefill step first continues
// the prompts already started (chunked), then admits waiting requests in order, each with
// at most prefill_chunk_tokens (SGLang's chunked_prefill_size) of its prompt, up to the
// token budget. Unlike `continuous`, a prompt longer than the budget is split over several
// prefill steps instead of being refused.
#include <algorithm>
#include <cmath>

#include "sim/engine/batch_filler.h"

namespace servesim {
namespace {

// SGLang's admission check (PrefillAdder, global_config.py defaults): a request joins a
// prefill batch only if the free memory covers, for it and for every running request,
// the prompt tokens still to compute plus new_token_ratio x the output tokens still to
// come. The ratio starts at 0.7, falls by 0.001 per decode step down to 0.1, and goes back
// up when a decode step has to retract (preempt) requests -- SGLang recomputes it from the
// decoded share; servesim simply resets it to 1.0.
constexpr double kInitNewTokenRatio = 0.7;
constexpr double kMinNewTokenRatio = 0.1;
constexpr double kNewTokenRatioDecay = 0.001;
constexpr double kRatioAfterRetract = 1.0;

class PrefillFirstScheduler final : public Scheduler {
 public:
  void schedule(SchedulerState& s, StepPlan& plan) override {
    std::int64_t budget = s.config.max_batched_tokens;
    // Prompts in progress (more than a decode's one token left) continue first.
    for (std::size_t i = 0; i < s.running.size() && budget > 0; ++i) {
      RequestState& r = *s.running[i];
      if (r.remaining() <= 1 && !r.in_prefill()) continue;
      const std::int64_t n = sched::chunk_tokens(s, r, budget);
      if (!s.kv.allocate(r, n)) break;  // decodes will free memory, or preempt, below
      sched::add_chunk(plan, r, n);
      budget -= n;
    }
    admit(s, plan, budget);
    if (!plan.empty()) return;
    std::int64_t decode_budget = s.config.max_batched_tokens;
    const bool retracted = sched::schedule_running(s, plan, decode_budget);
    new_token_ratio_ = retracted ? kRatioAfterRetract : std::max(kMinNewTokenRatio, new_token_ratio_ - kNewTokenRatioDecay);
  }

 private:
  // Blocks `r` may still take: its uncomputed prompt, and ratio x its outputs to come.
  std::int64_t future_blocks(const SchedulerState& s, const RequestState& r) const {
    const double prompt_left = static_cast<double>(std::max<std::int64_t>(0, r.spec.prompt_tokens - r.num_computed_tokens));
    const double outputs_left = static_cast<double>(r.spec.output_tokens - r.num_output_done);
    return s.kv.blocks_for(static_cast<std::int64_t>(std::ceil(prompt_left + new_token_ratio_ * outputs_left)));
  }

  void admit(SchedulerState& s, StepPlan& plan, std::int64_t& budget) {
    std::int64_t reserved = 0;  // running requests' future blocks not yet held
    for (const RequestState* r : s.running)
      reserved += std::max<std::int64_t>(0, future_blocks(s, *r) - (r->num_blocks() - s.kv.blocks_for(r->num_computed_tokens)));
    sched::admit_waiting(s, plan, budget, /*whole_prompt=*/false, [&](const RequestState& r, std::int64_t) {
      const std::int64_t own = future_blocks(s, r);
      if (!s.running.empty() && s.kv.free_blocks() - own < reserved) return false;
      reserved += own;  // an idle replica always starts
      return true;
    });
  }

  double new_token_ratio_ = kInitNewTokenRatio;
};

}  // namespace

std::unique_ptr<Scheduler> make_prefill_first_scheduler() { return std::make_unique<PrefillFirstScheduler>(); }

}  // namespace servesim
