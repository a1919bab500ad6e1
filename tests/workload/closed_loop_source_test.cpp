#include "sim/workload/closed_loop_source.h"

#include <catch2/catch.hpp>
#include <set>
#include <queue>

#include "sim/core/errors.h"
#include "workload_test_util.h"

namespace closed_loop_source_test {

using namespace servesim;

namespace {

ClassSpec closed_class(int users, std::optional<double> think_s) {
  ClassSpec spec;
  spec.name = "users";
  ArrivalSpec arrival;
  arrival.process = ArrivalSpec::Process::closed;
  arrival.concurrency = users;
  if (think_s) {
    DistSpec think;
    think.kind = DistSpec::Kind::fixed;
    think.a = *think_s;
    arrival.think_time_s = think;
  }
  spec.arrival = arrival;
  DistSpec input;
  input.kind = DistSpec::Kind::lognormal;
  input.a = 300;
  input.b = 0.5;
  spec.input = input;
  DistSpec output;
  output.kind = DistSpec::Kind::fixed;
  output.a = 20;
  spec.output = output;
  return spec;
}

struct Outcome {
  int max_outstanding = 0;
  int completed = 0;
  std::vector<Tick> arrivals;
  std::multiset<Tick> finishes;
};

// A tiny event loop standing in for the simulation: each request is served for a random
// time; its completion is reported to the source, which may then offer a new arrival.
Outcome drive(RequestSource& source, int requests, std::uint64_t seed) {
  Outcome out;
  Rng service(seed, "test/service");
  std::priority_queue<Tick, std::vector<Tick>, std::greater<Tick>> in_flight;
  Tick now = 0;
  RequestSpec dummy;
  while (out.completed < requests) {
    const auto arrival = source.peek_arrival_ns();
    if (arrival && (in_flight.empty() || *arrival <= in_flight.top())) {
      REQUIRE(*arrival >= now);  // a new arrival is never in the past
      now = *arrival;
      const RequestSpec r = source.pop();
      out.arrivals.push_back(r.arrival_ns);
      in_flight.push(now + 1 + ticks_from_seconds(service.exponential(2.0)));
      out.max_outstanding = std::max<int>(out.max_outstanding, in_flight.size());
    } else {
      REQUIRE_FALSE(in_flight.empty());  // a closed loop never stalls with nothing in flight
      now = in_flight.top();
      in_flight.pop();
      out.finishes.insert(now);
      source.on_finished(dummy, now);
      ++out.completed;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("closed loop: all users start at t=0 and never more than `concurrency` are outstanding", "[workload]") {
  const auto source = make_source(closed_class(8, 1.5), 2, 7);
  // Before any completion: exactly 8 arrivals at t = 0, then nothing to offer.
  for (int i = 0; i < 8; ++i) {
    REQUIRE(source->peek_arrival_ns() == Tick{0});
    REQUIRE(source->pop().class_index == 2);
  }
  CHECK_FALSE(source->peek_arrival_ns().has_value());
  CHECK_FALSE(source->exhausted());
  // One completion at 10 s frees one user, who returns after the 1.5 s think time.
  RequestSpec done;
  source->on_finished(done, 10 * kNsPerSec);
  CHECK(source->peek_arrival_ns() == 11 * kNsPerSec + kNsPerSec / 2);
  source->pop();
  CHECK_FALSE(source->peek_arrival_ns().has_value());
}

TEST_CASE("closed loop: under load the outstanding count reaches but never exceeds the concurrency",
          "[workload]") {
  const auto source = make_source(closed_class(5, 1.0), 0, 3);
  const Outcome out = drive(*source, 5000, 3);
  CHECK(out.max_outstanding == 5);
  // With a fixed 1 s think time, every arrival after the first five is a finish + 1 s.
  std::multiset<Tick> expected;
  for (Tick f : out.finishes) expected.insert(f + kNsPerSec);
  for (std::size_t i = 5; i < out.arrivals.size(); ++i) {
    const auto it = expected.find(out.arrivals[i]);
    REQUIRE(it != expected.end());
    expected.erase(it);
  }
}

TEST_CASE("closed loop: with no think time the next request arrives at the completion time", "[workload]") {
  const auto source = make_source(closed_class(1, std::nullopt), 0, 1);
  REQUIRE(source->pop().arrival_ns == 0);
  RequestSpec done;
  source->on_finished(done, 1234);
  CHECK(source->peek_arrival_ns() == Tick{1234});
}

TEST_CASE("closed loop: a concurrency below one is a ConfigError", "[workload]") {
  CHECK_THROWS_AS(make_source(closed_class(0, 1.0), 0, 1), ConfigError);
}

}  // namespace closed_loop_source_test
