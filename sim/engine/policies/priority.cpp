// Priority scheduling across workload classes (vLLM's scheduling_policy "priority", with
// servesim's sign: a higher `priority` is served first). The step fills like
// chunked-prefill, with three differences:
// - the waiting queue is ordered by priority (highest first), then arrival, then id;
// - when blocks run out, the victim is the running request of lowest priority, latest
//   arrival among equals (vLLM v1: max over running of (priority, arrival_time));
// - with preempt_lower_priority, a waiting request that finds no sequence slot or no
//   blocks preempts running requests of strictly lower priority, lowest first, until it
//   fits (vLLM v0's _schedule_priority_preemption).
#include <algorithm>
#include <vector>

#include "sim/engine/batch_filler.h"
#include "sim/engine/lora_slots.h"

namespace servesim {
namespace {

// Serving order: true if `a` goes before `b`.
bool serves_before(const RequestState* a, const RequestState* b) {
  if (a->spec.priority != b->spec.priority) return a->spec.priority > b->spec.priority;
  if (a->spec.arrival_ns != b->spec.arrival_ns) return a->spec.arrival_ns < b->spec.arrival_ns;
  return a->spec.id < b->spec.id;
}

// The running request to give up first: lowest priority, then latest arrival.
RequestState* lowest_priority_running(const SchedulerState& s) {
  return *std::max_element(s.running.begin(), s.running.end(),
                           [](const RequestState* a, const RequestState* b) { return serves_before(a, b); });
}

class PriorityScheduler final : public Scheduler {
 public:
  bool keeps_decodes_lazy() const override { return true; }

  void schedule(SchedulerState& s, StepPlan& plan) override {
    order_waiting(s);
    std::int64_t budget = s.config.max_batched_tokens;
    if (sched::schedule_running(s, plan, budget, lowest_priority_running)) {
      // The victims went to the front of the queue; move each to its place.
      place_front(s, plan.preempted.size());
    } else {
      admit(s, plan, budget);
    }
    ordered_ = s.waiting.size();
  }

 private:
  // Between steps the replica only appends arrivals, so the first `ordered_` entries are
  // still in order: each newcomer is moved to its place (usually near the back).
  void order_waiting(SchedulerState& s) {
    auto& w = s.waiting;
    if (ordered_ > w.size()) {
      std::stable_sort(w.begin(), w.end(), serves_before);
      return;
    }
    for (std::size_t i = ordered_; i < w.size(); ++i) {
      const auto at = w.begin() + static_cast<std::ptrdiff_t>(i);
      const auto place = std::upper_bound(w.begin(), at, *at, serves_before);
      std::rotate(place, at, at + 1);
    }
  }

  // Moves the first `count` entries (victims just preempted, pushed to the front) to their
  // places in serving order; the entries behind them are in order.
  static void place_front(SchedulerState& s, std::size_t count) {
    auto& w = s.waiting;
    const std::vector<RequestState*> victims(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(count));
    w.erase(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(count));
    for (RequestState* v : victims) w.insert(std::upper_bound(w.begin(), w.end(), v, serves_before), v);
  }

  static void admit(SchedulerState& s, StepPlan& plan, std::int64_t& budget) {
    while (!s.waiting.empty() && budget > 0) {
      sched::admit_waiting(s, plan, budget, /*whole_prompt=*/false);
      if (s.waiting.empty() || budget <= 0 || !s.config.preempt_lower_priority) return;
      // The head could not join: make room by preempting a lower-priority request.
      RequestState* head = s.waiting.front();
      if (s.running.empty()) return;
      // A head kept out by max_loras (multi-LoRA) is not helped by any one victim's memory;
      // preempting for it could readmit the victim past it, again and again.
      if (s.config.lora.enabled && !LoraStepAdapters(s.running, s.config.lora.max_loras).admits(head->spec.lora_adapter)) return;
      RequestState* victim = lowest_priority_running(s);
      if (victim->spec.priority >= head->spec.priority) return;
      sched::preempt(s, plan, *victim);
      place_front(s, 1);
      budget = s.config.max_batched_tokens - sched::planned_tokens(plan);
    }
  }

  std::size_t ordered_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> make_priority_scheduler() { return std::make_unique<PriorityScheduler>(); }

}  // namespace servesim
