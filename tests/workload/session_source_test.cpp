// Sessions: each turn repeats the previous prompt and output and adds new tokens; block
// hashes extend the previous turn's chain; truncation drops whole old exchanges.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/workload/session_source.h"

namespace session_source_test {

using namespace servesim;

namespace {

DistSpec fixed(double v) {
  DistSpec d;
  d.kind = DistSpec::Kind::fixed;
  d.a = v;
  return d;
}

// One user, `turns` turns per session, input 100, output 40, new input 30, no pauses.
SessionSource one_user(int turns, std::optional<std::int64_t> max_history = std::nullopt) {
  SessionSourceParts p;
  p.class_name = "chat";
  p.block_tokens = 16;
  p.users = 1;
  p.input = make_distribution(fixed(100));
  p.output = make_distribution(fixed(40));
  p.turns = make_distribution(fixed(turns));
  p.new_input = make_distribution(fixed(30));
  p.max_history_tokens = max_history;
  return SessionSource(std::move(p), 1);
}

std::size_t common_prefix(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

TEST_CASE("sessions: each turn is the previous prompt - its output and new tokens", "[prefix]") {
  SessionSource s = one_user(3);
  REQUIRE(s.peek_arrival_ns() == Tick{0});
  const RequestSpec t1 = s.pop();
  CHECK((t1.session_id == 1 && t1.turn == 1));
  CHECK(t1.prompt_tokens == 100);
  CHECK(t1.output_tokens == 40);
  CHECK(t1.block_hashes.size() == 140 / 16);  // prompt and output: 8 full blocks
  CHECK_FALSE(s.peek_arrival_ns().has_value());  // the one user waits for the answer

  s.on_finished(t1, 5000);
  REQUIRE(s.peek_arrival_ns() == Tick{5000});
  const RequestSpec t2 = s.pop();
  CHECK((t2.session_id == 1 && t2.turn == 2));
  CHECK(t2.prompt_tokens == 100 + 40 + 30);
  CHECK(t2.block_hashes.size() == (170 + 40) / 16);
  // Every block turn 1 had (its prompt and output) is the start of turn 2.
  CHECK(common_prefix(t1.block_hashes, t2.block_hashes) == 8);

  s.on_finished(t2, 9000);
  const RequestSpec t3 = s.pop();
  CHECK(t3.turn == 3);
  CHECK(t3.prompt_tokens == 170 + 40 + 30);
  CHECK(common_prefix(t2.block_hashes, t3.block_hashes) == 210 / 16);

  // The session is over: the user starts a new one at once (no think time).
  s.on_finished(t3, 12000);
  CHECK(s.active_sessions() == 0);
  REQUIRE(s.peek_arrival_ns() == Tick{12000});
  const RequestSpec next = s.pop();
  CHECK((next.session_id == 2 && next.turn == 1));
  CHECK(common_prefix(next.block_hashes, t1.block_hashes) == 0);  // another conversation
}

TEST_CASE("sessions: history truncation drops the oldest exchange and breaks the chain there", "[prefix]") {
  SessionSource s = one_user(3, 200);
  const RequestSpec t1 = s.pop();
  s.on_finished(t1, 1);
  const RequestSpec t2 = s.pop();
  CHECK(t2.prompt_tokens == 170);  // within 200
  s.on_finished(t2, 2);
  const RequestSpec t3 = s.pop();
  // 240 > 200: the first exchange (turn 1's output and turn 2's input, 70 tokens) goes.
  CHECK(t3.prompt_tokens == 170);
  // Turn 1's 100 prompt tokens stay: 6 whole blocks (96 tokens) still match turn 2; block
  // 6 now continues with turn 2's output where turn 2 had turn 1's.
  CHECK(common_prefix(t2.block_hashes, t3.block_hashes) == 6);
}

TEST_CASE("sessions: open-loop arrivals start sessions - follow-ups come after completions", "[prefix]") {
  SessionSourceParts p;
  p.class_name = "agent";
  ArrivalSpec a;
  a.process = ArrivalSpec::Process::constant;
  a.rate_per_s = 1;
  p.starts = make_arrival_process(a, "agent", Rng(1, "x"));
  p.input = make_distribution(fixed(50));
  p.output = make_distribution(fixed(5));
  p.turns = make_distribution(fixed(2));
  p.new_input = make_distribution(fixed(10));
  p.think_s = make_distribution(fixed(0.25));
  SessionSource s(std::move(p), 3);
  REQUIRE(s.peek_arrival_ns() == Tick{1'000'000'000});
  const RequestSpec first = s.pop();
  CHECK(first.session_id == 1);
  s.on_finished(first, 1'100'000'000);
  // The follow-up (1.1 s + 0.25 s think) comes before the next session (2 s).
  REQUIRE(s.peek_arrival_ns() == Tick{1'350'000'000});
  const RequestSpec follow = s.pop();
  CHECK((follow.session_id == 1 && follow.turn == 2 && follow.prompt_tokens == 65));
  REQUIRE(s.peek_arrival_ns() == Tick{2'000'000'000});
  CHECK(s.pop().session_id == 2);
}

}  // namespace session_source_test
