#include "sim/core/event_queue.h"

#include <algorithm>
#include <array>

#include "sim/core/assert.h"

namespace servesim {

EventHandle EventQueue::push(Tick when, Callback fn, WarmUp warm_up, SameTimeOrder order) {
  SS_ASSERT(when >= 0, "an event before time 0");  // later() compares times as unsigned
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  const std::uint64_t seq = next_seq_++;
  slots_[slot].fn = std::move(fn);
  slots_[slot].seq = seq;
  slots_[slot].warm_up = warm_up;
  heap_.push_back(Entry{when, order.is_plain() ? SameTimeOrder::kPlain + seq : order.value, slot});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  return EventHandle(slot, seq);
}

void EventQueue::warm_up_next() {
  drop_cancelled_top();
  // The three earliest entries of a binary heap lie within its first seven (the k-th
  // earliest is at most k - 1 levels down): those of both heaps, earliest first. A
  // cancelled event keeps its place in line but gets no call.
  struct Candidate {
    Key key;
    const WarmUp* warm_up;  // null: cancelled
  };
  std::array<Candidate, 14> candidates;
  std::size_t n = 0;
  for (std::size_t i = 0; i < heap_.size() && i < 7; ++i) {
    const Slot& s = slots_[heap_[i].slot];
    candidates[n++] = {key_of(heap_[i].when, heap_[i].order), s.seq != 0 ? &s.warm_up : nullptr};
  }
  for (std::size_t i = 0; i < timer_heap_.size() && i < 7; ++i)
    if (timer_heap_[i].id != firing_) candidates[n++] = {timer_heap_[i].key, &timers_[timer_heap_[i].id].warm_up};
  const std::size_t next = std::min<std::size_t>(n, 3);
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(next),
                    candidates.begin() + static_cast<std::ptrdiff_t>(n),
                    [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
  for (std::size_t i = 0; i < next; ++i) {
    const WarmUp* w = candidates[i].warm_up;
    if (w != nullptr && w->fn != nullptr) w->fn(w->arg, 2 - static_cast<int>(i));
  }
}

bool EventQueue::pending(EventHandle handle) const {
  return !handle.empty() && handle.slot_ < slots_.size() && slots_[handle.slot_].seq == handle.seq_;
}

void EventQueue::cancel(EventHandle handle) {
  if (!pending(handle)) return;
  Slot& s = slots_[handle.slot_];
  s.seq = 0;  // the heap entry no longer matches its slot and is skipped on pop
  s.fn = nullptr;
  // The slot is recycled only when its stale heap entry is popped, so a fresh event can
  // never be mistaken for the cancelled one.
}

void EventQueue::drop_cancelled_top() {
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    // A slot is recycled only once its heap entry is popped, so the entry's slot is its
    // own: live, or cancelled (seq 0).
    if (slots_[top.slot].seq != 0) return;
    const std::uint32_t slot = top.slot;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
    free_slots_.push_back(slot);
  }
}

bool EventQueue::empty() {
  drop_cancelled_top();
  return heap_.empty() && timer_heap_.size() == (firing_ == kNoTimer ? 0 : 1);
}

void EventQueue::drop_fired_timer() {
  if (firing_ == kNoTimer) return;
  const std::uint32_t pos = timers_[firing_].pos;
  firing_ = kNoTimer;
  remove_timer_at(pos);
}

EventQueue::PopResult EventQueue::pop_due(Tick until, Popped& popped, Callback& fn) {
  drop_fired_timer();
  drop_cancelled_top();
  const bool no_event = heap_.empty();
  if (!timer_heap_.empty() && (no_event || timer_heap_.front().key < key_of(heap_.front().when, heap_.front().order))) {
    const TimerEntry top = timer_heap_.front();
    const auto when = static_cast<Tick>(top.key >> 64);
    if (when > until) return PopResult::later;
    firing_ = top.id;  // its entry stays until the next pop_due, unless it is re-armed
    const Timer& t = timers_[top.id];
    popped = Popped{when, static_cast<std::uint64_t>(top.key), t.fire, t.arg};
    return PopResult::popped;
  }
  if (no_event) return PopResult::empty;
  const Entry top = heap_.front();
  if (top.when > until) return PopResult::later;
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  heap_.pop_back();
  Slot& s = slots_[top.slot];
  fn = std::move(s.fn);
  s.fn = nullptr;
  s.seq = 0;
  free_slots_.push_back(top.slot);
  popped = Popped{top.when, top.order, nullptr, nullptr};
  return PopResult::popped;
}

TimerId EventQueue::add_timer(TimerFn fire, void* arg, WarmUp warm_up) {
  SS_ASSERT(fire != nullptr && timers_.size() < kNotArmed, "a timer needs something to call");
  timers_.push_back(Timer{fire, arg, warm_up});
  return static_cast<TimerId>(timers_.size() - 1);
}

void EventQueue::arm(TimerId id, Tick when, SameTimeOrder order) {
  SS_ASSERT(when >= 0 && id < timers_.size(), "a timer armed before time 0, or one never added");
  const std::uint64_t seq = next_seq_++;  // as push: one number per scheduling, early or plain
  const TimerEntry entry{key_of(when, order.is_plain() ? SameTimeOrder::kPlain + seq : order.value), id};
  if (id == firing_) firing_ = kNoTimer;  // its entry is re-keyed where it is
  const std::uint32_t pos = timers_[id].pos;
  if (pos == kNotArmed) {
    timer_heap_.emplace_back();
    sift_timer_up(static_cast<std::uint32_t>(timer_heap_.size() - 1), entry);
  } else if (entry.key < timer_heap_[pos].key) {
    sift_timer_up(pos, entry);
  } else {
    sift_timer_down(pos, entry);
  }
}

void EventQueue::disarm(TimerId id) {
  if (id == firing_) {
    drop_fired_timer();
    return;
  }
  const std::uint32_t pos = timers_[id].pos;
  if (pos != kNotArmed) remove_timer_at(pos);
}

void EventQueue::place_timer(std::uint32_t pos, TimerEntry entry) {
  timer_heap_[pos] = entry;
  timers_[entry.id].pos = pos;
}

void EventQueue::sift_timer_up(std::uint32_t pos, TimerEntry entry) {
  while (pos > 0) {
    const std::uint32_t parent = (pos - 1) / 2;
    if (!(entry.key < timer_heap_[parent].key)) break;
    place_timer(pos, timer_heap_[parent]);
    pos = parent;
  }
  place_timer(pos, entry);
}

void EventQueue::sift_timer_down(std::uint32_t pos, TimerEntry entry) {
  const auto n = static_cast<std::uint32_t>(timer_heap_.size());
  for (;;) {
    std::uint32_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && timer_heap_[child + 1].key < timer_heap_[child].key) ++child;
    if (!(timer_heap_[child].key < entry.key)) break;
    place_timer(pos, timer_heap_[child]);
    pos = child;
  }
  place_timer(pos, entry);
}

void EventQueue::remove_timer_at(std::uint32_t pos) {
  timers_[timer_heap_[pos].id].pos = kNotArmed;
  const TimerEntry last = timer_heap_.back();
  timer_heap_.pop_back();
  if (pos == timer_heap_.size()) return;  // it was the last entry
  if (pos > 0 && last.key < timer_heap_[(pos - 1) / 2].key) {
    sift_timer_up(pos, last);
  } else {
    sift_timer_down(pos, last);
  }
}

}  // namespace servesim
