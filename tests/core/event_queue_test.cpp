#include <catch2/catch.hpp>
#include <algorithm>
#include <utility>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/simulator.h"

namespace event_queue_test {

using namespace servesim;

TEST_CASE("event queue: events run in time order - ties in insertion order", "[core]") {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(30, [&] { order.push_back(3); });
  sim.schedule_at(10, [&] { order.push_back(1); });
  sim.schedule_at(20, [&] { order.push_back(21); });
  sim.schedule_at(20, [&] { order.push_back(22); });
  sim.schedule_at(20, [&] { order.push_back(23); });
  sim.run();
  CHECK(order == std::vector<int>{1, 21, 22, 23, 3});
  CHECK(sim.now() == 30);
}

TEST_CASE("event queue: early events of a nanosecond run first by key whenever they were scheduled", "[core]") {
  Simulator sim;
  std::vector<int> order;
  std::vector<std::uint64_t> orders;
  const auto note = [&](int id) {
    order.push_back(id);
    orders.push_back(sim.current_order());
  };
  sim.schedule_at(20, [&] { note(1); });                                   // plain, first scheduled
  sim.schedule_at(20, [&] { note(2); }, {}, SameTimeOrder::early(7));     // early, key 7
  sim.schedule_at(10, [&] {
    note(0);
    sim.schedule_at(20, [&] { note(3); }, {}, SameTimeOrder::early(2));   // scheduled last, key 2
    sim.schedule_at(20, [&] { note(4); });                                 // plain, scheduled last
  });
  sim.run();
  CHECK(order == std::vector<int>{0, 3, 2, 1, 4});
  // current_order() tells an event where it stands: early keys, then plain ones in order.
  CHECK(orders[1] == 2);
  CHECK(orders[2] == 7);
  CHECK(orders[3] >= SameTimeOrder::kPlain);
  CHECK(orders[4] > orders[3]);
  CHECK(sim.current_order() == ~std::uint64_t{0});  // the queue ran dry: everything ran
}

TEST_CASE("event queue: a cancelled event never runs and an empty handle is safe", "[core]") {
  Simulator sim;
  int ran = 0;
  EventHandle none;
  sim.cancel(none);  // no effect
  auto h = sim.schedule_at(5, [&] { ran += 1; });
  sim.schedule_at(6, [&] { ran += 10; });
  CHECK(sim.pending(h));
  sim.cancel(h);
  CHECK_FALSE(sim.pending(h));
  sim.cancel(h);  // twice is fine
  sim.run();
  CHECK(ran == 10);
}

TEST_CASE("event queue: a recycled slot is not confused with a cancelled handle", "[core]") {
  Simulator sim;
  int ran = 0;
  auto old = sim.schedule_at(1, [&] { ran += 1; });
  sim.run();  // old fires, its slot becomes free
  auto fresh = sim.schedule_at(2, [&] { ran += 100; });
  sim.cancel(old);  // expired handle: must not cancel the new event in the same slot
  CHECK(sim.pending(fresh));
  sim.run();
  CHECK(ran == 101);
}

TEST_CASE("simulator: events scheduled from events keep the clock monotonic", "[core]") {
  Simulator sim;
  std::vector<Tick> seen;
  std::function<void()> tick = [&] {
    seen.push_back(sim.now());
    if (seen.size() < 5) sim.schedule_in(7, tick);
  };
  sim.schedule_at(0, tick);
  sim.run();
  CHECK(seen == std::vector<Tick>{0, 7, 14, 21, 28});
}

TEST_CASE("simulator: run(until) stops before later events and leaves the clock there", "[core]") {
  Simulator sim;
  int ran = 0;
  sim.schedule_at(10, [&] { ++ran; });
  sim.schedule_at(100, [&] { ++ran; });
  sim.run(50);
  CHECK(ran == 1);
  CHECK(sim.now() == 50);
  CHECK(sim.has_pending());
}

TEST_CASE("event queue: pop_due skips cancelled events and leaves later ones in place", "[core]") {
  EventQueue q;
  EventQueue::Popped popped;
  EventQueue::Callback fn;
  CHECK(q.pop_due(100, popped, fn) == EventQueue::PopResult::empty);
  int ran = 0;
  const EventHandle first = q.push(5, [&] { ran += 1; });
  q.push(7, [&] { ran += 10; });
  q.push(60, [&] { ran += 100; });
  q.cancel(first);
  REQUIRE(q.pop_due(50, popped, fn) == EventQueue::PopResult::popped);
  CHECK(popped.when == 7);  // the cancelled event at 5 was dropped, not returned
  CHECK(popped.fire == nullptr);  // a callback, not a timer
  fn();
  CHECK(q.pop_due(50, popped, fn) == EventQueue::PopResult::later);
  CHECK(popped.when == 7);  // untouched when nothing is popped
  REQUIRE(q.pop_due(60, popped, fn) == EventQueue::PopResult::popped);
  fn();
  CHECK(popped.when == 60);
  CHECK(ran == 110);
  CHECK(q.pop_due(1000, popped, fn) == EventQueue::PopResult::empty);
}

namespace {
struct WarmLog {
  std::vector<std::pair<int, int>> calls;  // (event id, stage)
};
struct WarmArg {
  WarmLog* log;
  int id;
};
void record_warm_up(const void* arg, int stage) {
  const auto* a = static_cast<const WarmArg*>(arg);
  a->log->calls.emplace_back(a->id, stage);
}
}  // namespace

// While one event runs, the next three in (time, insertion) order get their warm-up hints,
// the next at stage 2, then 1, then 0; a cancelled event's hint is never called.
TEST_CASE("event queue: warm-up hints go to the next three events in order", "[core]") {
  Simulator sim;
  WarmLog log;
  std::vector<WarmArg> args;
  args.reserve(8);
  for (int id = 0; id < 8; ++id) args.push_back(WarmArg{&log, id});
  std::vector<std::vector<std::pair<int, int>>> seen_before;  // hint calls made before each event ran
  const auto event = [&] {
    return [&] {
      seen_before.push_back(log.calls);
      log.calls.clear();
    };
  };
  // Times chosen so that heap order differs from insertion order; 5 and 6 tie at 40.
  const Tick when[8] = {70, 10, 50, 30, 20, 40, 40, 60};
  std::vector<EventHandle> handles;
  for (int id = 0; id < 8; ++id)
    handles.push_back(sim.schedule_at(when[id], event(), WarmUp{&record_warm_up, &args[static_cast<std::size_t>(id)]}));
  sim.cancel(handles[2]);  // at 50: skipped by the hints as by the run
  sim.run();
  // Run order: 1 (10), 4 (20), 3 (30), 5 (40), 6 (40), 7 (60), 0 (70); the cancelled 2 (50)
  // stays in the queue until it reaches the top, where the hints first drop it.
  const std::vector<int> run_order{1, 4, 3, 5, 6, 7, 0};
  const std::vector<int> queue_order{1, 4, 3, 5, 6, 2, 7, 0};
  REQUIRE(seen_before.size() == run_order.size());
  for (std::size_t k = 0; k < run_order.size(); ++k) {
    INFO("event " << run_order[k]);
    // The three events queued after this one (a cancelled one first in line is dropped),
    // at stages 2, 1, 0; a cancelled one keeps its place but gets no call.
    auto p = static_cast<std::size_t>(std::find(queue_order.begin(), queue_order.end(), run_order[k]) -
                                      queue_order.begin()) + 1;
    if (p < queue_order.size() && queue_order[p] == 2) ++p;
    std::vector<std::pair<int, int>> want;
    for (int stage = 2; stage >= 0 && p < queue_order.size(); --stage, ++p)
      if (queue_order[p] != 2) want.emplace_back(queue_order[p], stage);
    CHECK(seen_before[k] == want);
  }
}

// Switched off (a small cluster, Simulation), no hint is called and the events run as ever.
TEST_CASE("event queue: with warm-ups off no hint is called and the order is the same", "[core]") {
  for (const bool on : {true, false}) {
    Simulator sim;
    sim.set_warm_ups(on);
    WarmLog log;
    std::vector<WarmArg> args;
    args.reserve(8);
    for (int id = 0; id < 8; ++id) args.push_back(WarmArg{&log, id});
    std::vector<int> ran;
    const Tick when[8] = {70, 10, 50, 30, 20, 40, 40, 60};
    for (int id = 0; id < 8; ++id)
      sim.schedule_at(when[id], [&ran, id] { ran.push_back(id); }, WarmUp{&record_warm_up, &args[static_cast<std::size_t>(id)]});
    sim.run();
    CHECK(ran == std::vector<int>{1, 4, 3, 5, 6, 2, 7, 0});
    CHECK(log.calls.empty() == !on);
  }
}

namespace {
void no_call(void*) {}
}  // namespace

// Timers (tests/core/event_timer_test.cpp) take part in the hints like any event.
TEST_CASE("timers: warm-up hints go to the next three of timers and events together", "[core]") {
  Simulator sim;
  WarmLog log;
  std::vector<WarmArg> args{{&log, 0}, {&log, 1}, {&log, 2}, {&log, 3}, {&log, 4}};
  std::vector<std::vector<std::pair<int, int>>> seen_before;  // hint calls made before each ran
  const auto event = [&] {
    seen_before.push_back(log.calls);
    log.calls.clear();
  };
  // Timers 0 (at 10) and 2 (at 30); events 1 (20), 3 (40) and 4 (50).
  const TimerId t0 = sim.add_timer(&no_call, nullptr, WarmUp{&record_warm_up, &args[0]});
  const TimerId t2 = sim.add_timer(&no_call, nullptr, WarmUp{&record_warm_up, &args[2]});
  sim.arm_timer(t0, 10);
  sim.arm_timer(t2, 30);
  sim.schedule_at(20, event, WarmUp{&record_warm_up, &args[1]});
  sim.schedule_at(40, event, WarmUp{&record_warm_up, &args[3]});
  sim.schedule_at(50, event, WarmUp{&record_warm_up, &args[4]});
  sim.run();
  // Before event 1 (at 20) ran: the hints called while timer 0 ran (1, 2, 3) and while
  // event 1 itself was popped (2, 3, 4).
  REQUIRE(seen_before.size() == 3);
  CHECK(seen_before[0] == std::vector<std::pair<int, int>>{{1, 2}, {2, 1}, {3, 0}, {2, 2}, {3, 1}, {4, 0}});
}

}  // namespace event_queue_test
