#include <catch2/catch.hpp>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/simulator.h"

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
  Tick when = -1;
  EventQueue::Callback fn;
  CHECK(q.pop_due(100, when, fn) == EventQueue::PopResult::empty);
  int ran = 0;
  const EventHandle first = q.push(5, [&] { ran += 1; });
  q.push(7, [&] { ran += 10; });
  q.push(60, [&] { ran += 100; });
  q.cancel(first);
  REQUIRE(q.pop_due(50, when, fn) == EventQueue::PopResult::popped);
  CHECK(when == 7);  // the cancelled event at 5 was dropped, not returned
  fn();
  CHECK(q.pop_due(50, when, fn) == EventQueue::PopResult::later);
  CHECK(when == 7);  // untouched when nothing is popped
  REQUIRE(q.pop_due(60, when, fn) == EventQueue::PopResult::popped);
  fn();
  CHECK(when == 60);
  CHECK(ran == 110);
  CHECK(q.pop_due(1000, when, fn) == EventQueue::PopResult::empty);
}
