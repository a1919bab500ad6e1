#include "sim/core/event_queue.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace servesim {

EventHandle EventQueue::push(Tick when, Callback fn) {
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
  heap_.push_back(Entry{when, seq, slot});
  std::push_heap(heap_.begin(), heap_.end(), later);
  return EventHandle(slot, seq);
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
    if (slots_[top.slot].seq == top.seq) return;
    const std::uint32_t slot = top.slot;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
    free_slots_.push_back(slot);
  }
}

bool EventQueue::empty() {
  drop_cancelled_top();
  return heap_.empty();
}

EventQueue::PopResult EventQueue::pop_due(Tick until, Tick& when, Callback& fn) {
  drop_cancelled_top();
  if (heap_.empty()) return PopResult::empty;
  const Entry top = heap_.front();
  if (top.when > until) return PopResult::later;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  heap_.pop_back();
  Slot& s = slots_[top.slot];
  fn = std::move(s.fn);
  s.fn = nullptr;
  s.seq = 0;
  free_slots_.push_back(top.slot);
  when = top.when;
  return PopResult::popped;
}

}  // namespace servesim
