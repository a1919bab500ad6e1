#include "sim/engine/batch_filler.h"

#include <vector>

#include "sim/core/assert.h"
#include "sim/engine/lora_slots.h"

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

namespace {

// One admission attempt of the waiting queue's head: whether it joined the running set.
bool try_admit_head(SchedulerState& s, StepPlan& plan, std::int64_t& budget, bool whole_prompt, const AdmitGate& gate) {
  RequestState& r = *s.waiting.front();
  begin_admission(s, r);  // a cached prefix shrinks what is left to compute
  if (whole_prompt && r.remaining() > budget) return false;
  const std::int64_t n = whole_prompt ? r.remaining() : chunk_tokens(s, r, budget);
  if (gate && !gate(r, s.kv.blocks_for(r.num_computed_tokens + n) - r.num_blocks())) return false;
  if (!admission_allows(s, r, n) || !s.kv.allocate(r, n)) return false;
  s.waiting.pop_front();
  r.status = RequestStatus::running;
  s.running.push_back(&r);
  add_chunk(plan, r, n);
  budget -= n;
  return true;
}

// With multi-LoRA serving, as vLLM v1's scheduler (vllm/v1/core/sched/scheduler.py,
// schedule: "Scheduling would exceed max_loras, skip"): a waiting request whose adapter is
// not among the step's and would make them more than max_loras is skipped, and the
// requests behind it are tried; the skipped ones go back to the queue's front in order.
int admit_waiting_lora(SchedulerState& s, StepPlan& plan, std::int64_t& budget, bool whole_prompt,
                       const AdmitGate& gate) {
  LoraStepAdapters adapters(s.running, s.config.lora.max_loras);
  std::vector<RequestState*> skipped;
  int joined = 0;
  while (!s.waiting.empty() && budget > 0 && s.has_seq_slot()) {
    RequestState& r = *s.waiting.front();
    if (!adapters.admits(r.spec.lora_adapter)) {
      s.waiting.pop_front();
      skipped.push_back(&r);
      continue;
    }
    if (!try_admit_head(s, plan, budget, whole_prompt, gate)) break;
    adapters.add(r.spec.lora_adapter);
    ++joined;
  }
  s.waiting.insert(s.waiting.begin(), skipped.begin(), skipped.end());
  return joined;
}

}  // namespace

int admit_waiting(SchedulerState& s, StepPlan& plan, std::int64_t& budget, bool whole_prompt,
                  const AdmitGate& gate) {
  if (s.config.lora.enabled) return admit_waiting_lora(s, plan, budget, whole_prompt, gate);
  int joined = 0;
  while (!s.waiting.empty() && budget > 0 && s.has_seq_slot()) {
    if (!try_admit_head(s, plan, budget, whole_prompt, gate)) break;
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
