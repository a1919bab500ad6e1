#include "sim/engine/batch_filler.h"

#include <vector>

#include "sim/core/assert.h"

namespace servesim::sched {

RequestState* newest_running(const SchedulerState& s) {
  SS_ASSERT(!s.running.empty(), "no victim to pick");
  return s.running.back();
}

bool schedule_running(SchedulerState& s, StepPlan& plan, std::int64_t& budget, const VictimPicker& pick) {
  if (schedule_running_whole(s, plan, budget, /*chunked=*/true)) return false;  // nobody preempted
  bool preempted = false;
  // A copy: a victim may sit before the request being served (priority order), and the
  // running list shifts when it leaves.
  std::vector<RequestState*> own;
  std::vector<RequestState*>& order = s.scratch ? *s.scratch : own;
  order.assign(s.running.begin(), s.running.end());
  for (RequestState* r : order) {
    if (budget <= 0) break;
    if (r->status != RequestStatus::running) continue;  // preempted earlier in this loop
    const std::int64_t n = chunk_tokens(s, *r, budget);
    bool self_preempted = false;
    while (!s.kv.allocate(*r, n)) {
      RequestState* victim = pick(s);
      preempt(s, plan, *victim);
      preempted = true;
      if (victim == r) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) continue;
    add_chunk(plan, *r, n);
  }
  budget = s.config.max_batched_tokens - planned_tokens(plan);  // preemption returns tokens
  return preempted;
}

int admit_waiting(SchedulerState& s, StepPlan& plan, std::int64_t& budget, bool whole_prompt,
                  const AdmitGate& gate) {
  int joined = 0;
  while (!s.waiting.empty() && budget > 0 && s.has_seq_slot()) {
    RequestState& r = *s.waiting.front();
    begin_admission(s, r);  // a cached prefix shrinks what is left to compute
    if (whole_prompt && r.remaining() > budget) break;
    const std::int64_t n = whole_prompt ? r.remaining() : chunk_tokens(s, r, budget);
    if (gate && !gate(r, s.kv.blocks_for(r.num_computed_tokens + n) - r.num_blocks())) break;
    if (!admission_allows(s, r, n) || !s.kv.allocate(r, n)) break;
    s.waiting.pop_front();
    r.status = RequestStatus::running;
    s.running.push_back(&r);
    add_chunk(plan, r, n);
    budget -= n;
    ++joined;
  }
  return joined;
}

std::int64_t planned_tokens(const StepPlan& plan) {
  std::int64_t n = plan.lazy_decodes;  // one token each
  for (const auto& c : plan.chunks) n += c.num_tokens;
  return n;
}

}  // namespace servesim::sched
