#include "sim/core/simulator.h"

#include "sim/core/assert.h"

namespace servesim {

EventHandle Simulator::schedule_at(Tick when, EventQueue::Callback fn, WarmUp warm_up, SameTimeOrder order) {
  SS_ASSERT(when >= now_ns_, "an event was scheduled in the past");
  return queue_.push(when, std::move(fn), warm_up, order);
}

void Simulator::arm_timer(TimerId id, Tick when, SameTimeOrder order) {
  SS_ASSERT(when >= now_ns_, "a timer was armed in the past");
  queue_.arm(id, when, order);
}

std::uint64_t Simulator::run(Tick until) {
  stop_requested_ = false;
  std::uint64_t ran = 0;
  while (!stop_requested_) {
    EventQueue::Popped popped;
    EventQueue::Callback fn;  // destroyed after its call, as each event's own
    const EventQueue::PopResult next = queue_.pop_due(until, popped, fn);
    if (next != EventQueue::PopResult::popped) {
      // Every event up to the clock has run.
      if (next == EventQueue::PopResult::later) now_ns_ = until;
      current_order_ = ~std::uint64_t{0};
      break;
    }
    now_ns_ = popped.when;
    current_order_ = popped.order;
    if (warm_ups_) queue_.warm_up_next();  // the next event's memory loads while this one runs
    if (popped.fire != nullptr) {
      popped.fire(popped.arg);
    } else {
      fn();
    }
    ++ran;
  }
  events_run_ += ran;
  return ran;
}

}  // namespace servesim
