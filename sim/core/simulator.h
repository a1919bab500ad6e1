#pragma once
// The simulation kernel: a clock and the pending events. It knows nothing of LLMs; the
// engine and cluster layers schedule callbacks on it (SimGrid's kernel/model split).
#include "sim/core/event_queue.h"
#include "sim/core/time.h"

namespace servesim {

class Simulator {
 public:
  Tick now() const { return now_ns_; }

  // REQUIRES: when >= now(). Time never runs backwards.
  // `warm_up`: see WarmUp (event_queue.h); a speed hint only.
  // `order`: its place among the events of its nanosecond (SameTimeOrder; plain: after the
  // early ones, in the order scheduled).
  EventHandle schedule_at(Tick when, EventQueue::Callback fn, WarmUp warm_up = {}, SameTimeOrder order = {});
  // REQUIRES: delay >= 0.
  EventHandle schedule_in(Tick delay, EventQueue::Callback fn, WarmUp warm_up = {}, SameTimeOrder order = {}) {
    return schedule_at(now_ns_ + delay, std::move(fn), warm_up, order);
  }
  // The place of the event being run among its nanosecond's events (as pop_due gives it);
  // an event at (now(), x) with x below this has run already. After run() returns for an
  // empty queue or a later event, every event up to now() has run: the largest value.
  std::uint64_t current_order() const { return current_order_; }
  void cancel(EventHandle h) { queue_.cancel(h); }
  bool pending(EventHandle h) const { return queue_.pending(h); }

  // Timers (EventQueue): for an object that keeps one event of its own scheduled again and
  // again (a replica's step end, a source's next arrival), cheaper than schedule_at and
  // cancel. fire(arg) runs at the armed time, in the order schedule_at's events would.
  TimerId add_timer(EventQueue::TimerFn fire, void* arg, WarmUp warm_up = {}) { return queue_.add_timer(fire, arg, warm_up); }
  // REQUIRES: when >= now(). Replaces the time it was armed for, if any.
  void arm_timer(TimerId id, Tick when, SameTimeOrder order = {});
  void disarm_timer(TimerId id) { queue_.disarm(id); }
  bool timer_armed(TimerId id) const { return queue_.armed(id); }

  // Runs events until none remain, stop() is called, or the next event is after `until`
  // (then the clock is left at `until`). Returns the number of events run.
  std::uint64_t run(Tick until = kTickMax);
  // Makes run() return after the current event.
  void stop() { stop_requested_ = true; }
  // Whether run() calls the warm-up hints of the events ahead (WarmUp; on by default).
  // They pay only where the events' state is cold by its turn -- many replicas -- and
  // cost their own instructions elsewhere; results are the same either way.
  void set_warm_ups(bool on) { warm_ups_ = on; }
  bool has_pending() { return !queue_.empty(); }
  std::uint64_t events_run() const { return events_run_; }

 private:
  EventQueue queue_;
  Tick now_ns_ = 0;
  std::uint64_t current_order_ = SameTimeOrder::kPlain;
  bool stop_requested_ = false;
  bool warm_ups_ = true;
  std::uint64_t events_run_ = 0;
};

}  // namespace servesim
