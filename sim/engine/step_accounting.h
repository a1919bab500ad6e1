#pragma once
// Latency attribution and GPU-time shares of the requests in one engine step
// (docs/metrics.md, "Latency attribution" and "Cost"). O(chunks) per step; two or three
// extra cost-model calls only on steps that mix prefill and decode work or read a
// prefix-cache hit.
#include <cstdint>

#include "sim/core/time.h"
#include "sim/engine/request_state.h"
#include "sim/engine/scheduler.h"
#include "sim/hardware/cost_model.h"

namespace servesim {

// How one step's time divides. total = model + extra; model = prefill + decode.
struct StepSplit {
  Tick total_ns = 0;
  Tick extra_ns = 0;    // engine CPU overheads, swap traffic, draft passes
  Tick decode_ns = 0;   // of the model time, what the decode work alone costs
  Tick prefill_ns = 0;  // the rest of the model time: what the prefill chunks added
  std::int64_t prefill_tokens = 0;  // new tokens of the prefill-work chunks
  std::int64_t decode_chunks = 0;   // one-token decodes (and speculative verifies)
  // Work per GPU of each phase (utilisation): the decode work's alone, prefill the rest.
  double prefill_flops = 0, decode_flops = 0, prefill_bytes = 0, decode_bytes = 0;
};

// A chunk is decode work when it computes the one token of a request past its prompt (the
// same rule as sched::add_chunk); everything else (prompt chunks, recompute) is prefill work.
inline bool is_decode_work(const ScheduledChunk& c) { return !c.request->in_prefill() && c.num_tokens == 1; }

// At a step's start, once the plan is final and priced (total_ns includes extra_ns):
// closes every scheduled or preempted request's interval since its last mark (queue,
// stall or preemption), and charges each scheduled request its share of the step's GPU
// time. Returns the split for account_step_end.
// `cost` is the model's price of plan.shape.
StepSplit account_step_start(const StepPlan& plan, Tick now_ns, Tick total_ns, Tick extra_ns, const StepCost& cost,
                             const CostModel& cost_model);
// At the step's end, before tokens are emitted: gives the step's time to each scheduled
// request's parts (own compute, batch share or interference, overhead, or preemption).
void account_step_end(const StepPlan& plan, const StepSplit& split, Tick start_ns, Tick end_ns);
// Closes a request's interval [mark, now] as queue, stall or preemption.
void account_gap(RequestState& request, Tick now_ns);

}  // namespace servesim
