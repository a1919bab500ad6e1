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

class EventQueue {
 public:
  using Callback = std::function<void()>;

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
  // `order` gets the popped event's place among its nanosecond's events (SameTimeOrder
  // value, a plain event's sequence number added).
  PopResult pop_due(Tick until, Tick& when, Callback& fn, std::uint64_t* order = nullptr);

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
  static bool later(const Entry& a, const Entry& b) {
    __extension__ using U128 = unsigned __int128;
    const U128 ka = static_cast<U128>(static_cast<std::uint64_t>(a.when)) << 64 | a.order;
    const U128 kb = static_cast<U128>(static_cast<std::uint64_t>(b.when)) << 64 | b.order;
    return ka > kb;
  }
  // later() as a type for the std heap algorithms: a function pointer was left an
  // out-of-line call per comparison.
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return later(a, b); }
  };
  void drop_cancelled_top();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_seq_ = 1;
};

}  // namespace servesim
