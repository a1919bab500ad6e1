#include "sim/core/event_queue.h"

#include <algorithm>

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
  const std::size_t n = heap_.size();
  if (n == 0) return;
  const auto warm = [this](std::size_t at, int stage) {
    const Slot& s = slots_[heap_[at].slot];
    if (s.warm_up.fn != nullptr && s.seq != 0) s.warm_up.fn(s.warm_up.arg, stage);
  };
  warm(0, 2);
  if (n < 2) return;
  // The second earliest is the earlier child of the root; the third, the earlier of the
  // other child and the second's children.
  const std::size_t second = n > 2 && later(heap_[1], heap_[2]) ? 2 : 1;
  warm(second, 1);
  std::size_t third = 0;
  for (const std::size_t c : {std::size_t{3} - second, 2 * second + 1, 2 * second + 2})
    if (c < n && (third == 0 || later(heap_[third], heap_[c]))) third = c;
  if (third != 0) warm(third, 0);
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
  return heap_.empty();
}

EventQueue::PopResult EventQueue::pop_due(Tick until, Tick& when, Callback& fn, std::uint64_t* order) {
  drop_cancelled_top();
  if (heap_.empty()) return PopResult::empty;
  const Entry top = heap_.front();
  if (top.when > until) return PopResult::later;
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  heap_.pop_back();
  Slot& s = slots_[top.slot];
  fn = std::move(s.fn);
  s.fn = nullptr;
  s.seq = 0;
  free_slots_.push_back(top.slot);
  when = top.when;
  if (order) *order = top.order;
  return PopResult::popped;
}

}  // namespace servesim
