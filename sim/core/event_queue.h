#pragma once
// The pending-event set: a binary heap ordered by (when, seq). `seq` only increases, so
// events at the same tick run in the order they were scheduled; no other tie-break exists.
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

class EventQueue {
 public:
  using Callback = std::function<void()>;

  EventHandle push(Tick when, Callback fn, WarmUp warm_up = {});
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
  PopResult pop_due(Tick until, Tick& when, Callback& fn);
  std::size_t size_including_cancelled() const { return heap_.size(); }

 private:
  struct Entry {
    Tick when;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  struct Slot {
    Callback fn;
    std::uint64_t seq = 0;  // 0 when free
    WarmUp warm_up;
  };
  static bool later(const Entry& a, const Entry& b) {
    return a.when != b.when ? a.when > b.when : a.seq > b.seq;
  }
  void drop_cancelled_top();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_seq_ = 1;
};

}  // namespace servesim
