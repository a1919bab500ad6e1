#pragma once
// The two halves of a token-budget step that several policies share (decode-priority,
// priority, inflight): running requests first, then admissions from the waiting queue.
// chunked-prefill and continuous keep their own loops; these follow the same rules.
#include <cstdint>
#include <functional>

#include "sim/engine/scheduler.h"

namespace servesim::sched {

// Which running request to preempt when blocks run out (vLLM: the newest).
using VictimPicker = std::function<RequestState*(const SchedulerState&)>;
RequestState* newest_running(const SchedulerState& state);

// Every running request, in running order, computes chunk_tokens() of the budget left,
// preempting `pick` victims when blocks run out. Returns whether anyone was preempted
// (vLLM v1 then admits no new request this step: memory is short).
bool schedule_running(SchedulerState& state, StepPlan& plan, std::int64_t& budget,
                      const VictimPicker& pick = newest_running);

// Admits waiting requests from the front while the budget, max_num_seqs, the admission
// rule and the KV cache allow, stopping at the first that does not fit (no skipping
// ahead, but for multi-LoRA serving's max_loras, which skips: lora_slots.h). `whole_prompt`: a request joins only if everything it has left fits the budget.
// `gate`, if given, is one more rule a request must pass (blocks needed for its chunk).
// Returns how many joined.
using AdmitGate = std::function<bool(const RequestState&, std::int64_t blocks_needed)>;
int admit_waiting(SchedulerState& state, StepPlan& plan, std::int64_t& budget, bool whole_prompt,
                  const AdmitGate& gate = {});

// Tokens already in the plan (the budget a policy has spent).
std::int64_t planned_tokens(const StepPlan& plan);

}  // namespace servesim::sched
