#pragma once
// The pending-event set: a binary heap ordered by (when, order). Among the events of one
// nanosecond the "early" ones run first, by their key (the engine gives each replica's
// step ends its replica's place in the cluster: SameTimeOrder), then every other event in
// the order it was scheduled (`seq` only increases). So a replica's step ends never depend
// on when they were scheduled, which lets a replica run several steps as one event and
// still agree with the step-by-step order (docs/performance.md, "Decode runs").
//
// Costs: push O(log n), pop_due O(log n), cancel O(1) (lazy: the entry is skipped when it
// reaches the top).
//
// Timers are the events a simulation schedules most -- each replica's next step end, each
// source's next arrival -- kept apart from the heap of callbacks: an object adds its timer
// once and arms it again and again, at most one time at once. Firing one calls a plain
// function (no std::function to move in and out of a slot), and re-arming or disarming
// one moves or removes its own entry (an indexed heap: no cancelled entry left to pop).
// Timers and callbacks run in one order, (time, SameTimeOrder), a plain timer taking its
// sequence number when armed as push gives one, so a simulation runs the same events in
// the same order whichever way it schedules them.
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

// A reference to a scheduled event. Default-constructed handles refer to no event; cancelling
// an empty, fired or already cancelled handle does nothing.
class EventHandle {
 public:
  EventHandle() = default;
  bool empty() const { return seq_ == 0; }

 private:
  friend class EventQueue;
  EventHandle(std::uint32_t slot, std::uint64_t seq) : slot_(slot), seq_(seq) {}
  std::uint32_t slot_ = 0;
  std::uint64_t seq_ = 0;
};

// An optional hint given with an event: fn(arg, stage) starts loading (prefetching) the
// memory the event's callback will read. While the simulator runs one event it calls the
// hints of the next three: stage 0 for the third in line, 1 for the second, 2 for the
// next, so a chain of pointers (an object, the array it points to, the records the array
// names) is followed one level per event, each level's loads issued an event before they
// are read. With many replicas a replica's state is cold by its next step (every other
// replica stepped meanwhile); this overlaps those misses with other events' work.
// A hint must not change anything: results never depend on it.
struct WarmUp {
  void (*fn)(const void* arg, int stage) = nullptr;
  const void* arg = nullptr;
};

// An event's place among the events of its nanosecond (see EventQueue). Ordered as a
// number: early(k) before early(k + 1) before every plain event.
struct SameTimeOrder {
  static constexpr std::uint64_t kPlain = std::uint64_t{1} << 63;
  std::uint64_t value = kPlain;  // plain: the queue adds the event's sequence number
  static SameTimeOrder early(std::uint32_t key) { return SameTimeOrder{key}; }
  bool is_plain() const { return value == kPlain; }
};

// A timer's number, from EventQueue::add_timer.
using TimerId = std::uint32_t;

class EventQueue {
 public:
  using Callback = std::function<void()>;
  using TimerFn = void (*)(void* arg);

  EventHandle push(Tick when, Callback fn, WarmUp warm_up = {}, SameTimeOrder order = {});
  // Calls the warm-up hints of the three earliest pending events (stages 2, 1, 0), after
  // dropping cancelled events at the top so that the next live one gets stage 2.
  void warm_up_next();
  void cancel(EventHandle handle);
  // True if the handle's event is still waiting to fire.
  bool pending(EventHandle handle) const;
  bool empty();
  // The simulator's loop in one call: if the earliest live event is at or before `until`,
  // removes it, moving its time and callback into `when` and `fn`, and returns `popped`;
  // otherwise removes nothing and says whether the queue is `empty` or its next event `later`.
  enum class PopResult { popped, empty, later };
  // What pop_due took: its time, its place among its nanosecond's events (SameTimeOrder
  // value, a plain event's sequence number added), and for a timer what to call (else
  // pop_due's `fn` holds the callback).
  struct Popped {
    Tick when = 0;
    std::uint64_t order = 0;
    TimerFn fire = nullptr;
    void* arg = nullptr;
  };
  PopResult pop_due(Tick until, Popped& popped, Callback& fn);

  // A timer that calls fire(arg) each time it comes due. Timers last as long as the queue.
  TimerId add_timer(TimerFn fire, void* arg, WarmUp warm_up = {});
  // Sets the timer to fire at `when` (REQUIRES: when >= 0), in place of the time it was
  // armed for, if it was.
  void arm(TimerId id, Tick when, SameTimeOrder order = {});
  // Unsets the timer; a timer that is not armed stays so.
  void disarm(TimerId id);
  bool armed(TimerId id) const { return timers_[id].pos != kNotArmed && id != firing_; }

 private:
  struct Entry {
    Tick when;
    std::uint64_t order;  // SameTimeOrder value (+ seq for a plain event)
    std::uint32_t slot;
  };
  struct Slot {
    Callback fn;
    std::uint64_t seq = 0;  // 0 when free
    WarmUp warm_up;
  };
  // (when, order) as one 128-bit number (when >= 0, push): the heap compares without a
  // branch on `when`, which at equal times is unpredictable (a third of the queue's work).
  __extension__ using Key = unsigned __int128;
  static Key key_of(Tick when, std::uint64_t order) {
    return static_cast<Key>(static_cast<std::uint64_t>(when)) << 64 | order;
  }
  static bool later(const Entry& a, const Entry& b) { return key_of(a.when, a.order) > key_of(b.when, b.order); }
  // later() as a type for the std heap algorithms: a function pointer was left an
  // out-of-line call per comparison.
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return later(a, b); }
  };
  void drop_cancelled_top();

  // Timers: an indexed min-heap of the armed ones (their keys in it, for the comparisons'
  // locality), each timer knowing its place in it.
  static constexpr std::uint32_t kNotArmed = ~std::uint32_t{0};
  struct Timer {
    TimerFn fire;
    void* arg;
    WarmUp warm_up;
    std::uint32_t pos = kNotArmed;  // in timer_heap_
  };
  struct TimerEntry {
    Key key;
    TimerId id;
  };
  void place_timer(std::uint32_t pos, TimerEntry entry);
  void sift_timer_up(std::uint32_t pos, TimerEntry entry);
  void sift_timer_down(std::uint32_t pos, TimerEntry entry);
  void remove_timer_at(std::uint32_t pos);

  // The timer pop_due just handed out keeps its entry until the next pop_due, so that
  // re-arming it from its own call -- what a replica's step end and a source's arrival do
  // -- moves the entry down from where it is, one sift instead of a removal and an
  // insertion. It counts as not armed meanwhile.
  static constexpr TimerId kNoTimer = ~TimerId{0};
  TimerId firing_ = kNoTimer;
  void drop_fired_timer();

  std::vector<Timer> timers_;
  std::vector<TimerEntry> timer_heap_;
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_seq_ = 1;
};

}  // namespace servesim
