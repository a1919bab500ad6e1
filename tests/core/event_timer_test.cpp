// Timers (EventQueue::add_timer, Simulator::arm_timer): an object's own event, armed again
// and again. They must run in the very order schedule_at and cancel would give, since the
// replicas' step ends and the sources' arrivals use them and results may not depend on it.
#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/rng.h"
#include "sim/core/simulator.h"

namespace event_timer_test {

using namespace servesim;

struct Fired {
  std::vector<int>* log;
  int id;
};
void note_fired(void* arg) {
  const auto* f = static_cast<const Fired*>(arg);
  f->log->push_back(f->id);
}

TEST_CASE("timers: run among scheduled events by time then early key then scheduling order", "[core]") {
  Simulator sim;
  std::vector<int> order;
  Fired plain_timer{&order, 1}, early_timer{&order, 2};
  const TimerId plain = sim.add_timer(&note_fired, &plain_timer);
  const TimerId early = sim.add_timer(&note_fired, &early_timer);
  sim.schedule_at(20, [&] { order.push_back(10); });                            // plain, scheduled first
  sim.arm_timer(plain, 20);                                                     // plain, second
  sim.schedule_at(20, [&] { order.push_back(11); }, {}, SameTimeOrder::early(5));
  sim.arm_timer(early, 20, SameTimeOrder::early(3));                            // early key 3: first of all
  sim.schedule_at(20, [&] { order.push_back(12); });                            // plain, third
  sim.schedule_at(5, [&] { order.push_back(0); });
  CHECK(sim.timer_armed(plain));
  sim.run();
  CHECK(order == std::vector<int>{0, 2, 11, 10, 1, 12});
  CHECK_FALSE(sim.timer_armed(plain));  // a timer fires once per arming
  CHECK_FALSE(sim.timer_armed(early));
}

TEST_CASE("timers: re-arming moves one and disarming stops it", "[core]") {
  Simulator sim;
  std::vector<int> order;
  Fired a{&order, 1}, b{&order, 2};
  const TimerId ta = sim.add_timer(&note_fired, &a);
  const TimerId tb = sim.add_timer(&note_fired, &b);
  sim.arm_timer(ta, 50);
  sim.arm_timer(tb, 10);
  sim.arm_timer(ta, 5);    // earlier
  sim.arm_timer(tb, 100);  // later
  sim.run(60);
  CHECK(order == std::vector<int>{1});
  CHECK(sim.now() == 60);
  CHECK(sim.timer_armed(tb));
  sim.disarm_timer(tb);
  sim.disarm_timer(tb);  // twice is fine
  CHECK_FALSE(sim.has_pending());
  sim.run();
  CHECK(order == std::vector<int>{1});
  // Re-armed at the same time it takes a new place among plain events: after those
  // scheduled before the re-arming.
  sim.arm_timer(ta, 70);
  sim.schedule_at(70, [&] { order.push_back(9); });
  sim.arm_timer(ta, 70);
  sim.run();
  CHECK(order == std::vector<int>{1, 9, 1});
}

// A timer's own call may re-arm it (a replica's next step end, a source's next arrival):
// it is not armed while the call runs, and its entry is moved from where it is, even when
// other timers armed meanwhile went ahead of it.
struct SelfArming {
  Simulator* sim = nullptr;
  TimerId self = 0, other = 0;
  std::vector<std::pair<Tick, bool>> calls;  // (time, armed during the call)
  bool pending_seen = true;
};
void self_arming(void* arg) {
  auto& s = *static_cast<SelfArming*>(arg);
  s.calls.emplace_back(s.sim->now(), s.sim->timer_armed(s.self));
  if (s.calls.size() == 1) {
    s.sim->arm_timer(s.other, s.sim->now(), SameTimeOrder::early(0));  // ahead of everything, now
    s.sim->arm_timer(s.self, s.sim->now() + 5);
  } else if (s.calls.size() == 2) {
    s.sim->arm_timer(s.self, s.sim->now() + 5);
    s.sim->disarm_timer(s.self);  // and taken back
    s.pending_seen = s.sim->has_pending();
  }
}

TEST_CASE("timers: a timer re-armed or disarmed from its own call", "[core]") {
  Simulator sim;
  SelfArming s;
  s.sim = &sim;
  std::vector<int> order;
  Fired other{&order, 2};
  s.self = sim.add_timer(&self_arming, &s, {});
  s.other = sim.add_timer(&note_fired, &other);
  sim.arm_timer(s.self, 10, SameTimeOrder::early(5));
  sim.run();
  CHECK(s.calls == std::vector<std::pair<Tick, bool>>{{10, false}, {15, false}});
  CHECK(order == std::vector<int>{2});  // the other timer ran at 10, between the two
  CHECK_FALSE(s.pending_seen);          // nothing left once it disarmed itself
  CHECK(sim.now() == 15);
  CHECK(sim.events_run() == 3);
}

TEST_CASE("timers: pop_due hands a timer's function and argument", "[core]") {
  EventQueue q;
  std::vector<int> order;
  Fired f{&order, 7};
  const TimerId t = q.add_timer(&note_fired, &f);
  q.push(9, [&] { order.push_back(1); });
  q.arm(t, 4, SameTimeOrder::early(0));
  EventQueue::Popped popped;
  EventQueue::Callback fn;
  CHECK(q.pop_due(3, popped, fn) == EventQueue::PopResult::later);
  REQUIRE(q.pop_due(100, popped, fn) == EventQueue::PopResult::popped);
  CHECK(popped.when == 4);
  CHECK(popped.order == 0);
  REQUIRE(popped.fire == &note_fired);
  popped.fire(popped.arg);
  CHECK(order == std::vector<int>{7});
  CHECK_FALSE(q.armed(t));
  REQUIRE(q.pop_due(100, popped, fn) == EventQueue::PopResult::popped);
  CHECK(popped.fire == nullptr);
  CHECK(popped.when == 9);
  CHECK(q.empty());
}

// Owners that each keep at most one event scheduled, re-arming, moving and dropping it at
// random from their events: once with timers, once with schedule_at and cancel. The two
// must fire the same owners at the same times in the same order (current_order included,
// as the engine compares it), through tens of thousands of events.
struct Owners {
  static constexpr int kOwners = 40;
  Simulator sim;
  Rng rng{12345};
  bool use_timers;
  std::vector<TimerId> timers;
  std::vector<EventHandle> handles;
  std::vector<std::pair<int, Tick>> log;
  std::vector<std::uint64_t> orders;
  std::vector<std::pair<Owners*, int>> args;

  explicit Owners(bool timers_on) : use_timers(timers_on) {
    args.reserve(kOwners);
    for (int k = 0; k < kOwners; ++k) {
      args.emplace_back(this, k);
      timers.push_back(sim.add_timer(&Owners::fire, &args.back()));
    }
    handles.resize(kOwners);
  }
  static void fire(void* arg) {
    auto& [owners, k] = *static_cast<std::pair<Owners*, int>*>(arg);
    owners->on_fire(k);
  }
  bool armed(int k) const { return use_timers ? sim.timer_armed(timers[k]) : sim.pending(handles[k]); }
  void arm(int k, Tick when, SameTimeOrder order) {
    if (use_timers) {
      sim.arm_timer(timers[k], when, order);
    } else {
      sim.cancel(handles[k]);
      handles[k] = sim.schedule_at(when, [this, k] { on_fire(k); }, {}, order);
    }
  }
  void disarm(int k) {
    if (use_timers) {
      sim.disarm_timer(timers[k]);
    } else {
      sim.cancel(handles[k]);
    }
  }
  void on_fire(int k) {
    log.emplace_back(k, sim.now());
    orders.push_back(sim.current_order());
    if (log.size() >= 30000) return;
    // A few random actions by this owner on others (and itself): small delays, so many
    // events share a nanosecond; early keys are the owner's own, so never shared.
    const auto actions = rng.uniform_int(1, 3);
    for (std::int64_t a = 0; a < actions; ++a) {
      const auto other = static_cast<int>(rng.uniform_int(0, kOwners - 1));
      const auto what = rng.uniform_int(0, 9);
      if (what == 0) {
        disarm(other);
      } else if (what <= 3 && armed(other)) {
        continue;  // left as it is
      } else {
        const Tick when = sim.now() + rng.uniform_int(0, 6);
        arm(other, when, rng.uniform_int(0, 1) == 0 ? SameTimeOrder{} : SameTimeOrder::early(static_cast<std::uint32_t>(other)));
      }
    }
    if (!armed(k) && rng.uniform_int(0, 1) == 0) arm(k, sim.now() + rng.uniform_int(1, 6), SameTimeOrder{});
  }
  void run() {
    for (int k = 0; k < kOwners; ++k) arm(k, k % 7, k % 2 == 0 ? SameTimeOrder{} : SameTimeOrder::early(static_cast<std::uint32_t>(k)));
    sim.run();
  }
};

TEST_CASE("timers: fire in the order schedule_at and cancel give through random re-arming", "[core]") {
  Owners with_timers(true), with_events(false);
  with_timers.run();
  with_events.run();
  REQUIRE(with_timers.log.size() >= 30000);
  CHECK(with_timers.log == with_events.log);
  CHECK(with_timers.orders == with_events.orders);
  CHECK(with_timers.sim.events_run() == with_events.sim.events_run());
}

}  // namespace event_timer_test
