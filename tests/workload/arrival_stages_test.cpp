// Staged arrival rates (`arrival: {stages: [{duration, rate}, ...]}`): counts per stage
// against rate x duration, the constant rule's exact times, the end of arrivals, and the
// parser's errors (file, line, key).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/arrival_process.h"
#include "sim/workload/source.h"

namespace arrival_stages_test {

using namespace servesim;

namespace {

ClassSpec staged_class(ArrivalSpec::Process process, std::vector<ArrivalSpec::Stage> stages, double cv = 1.0) {
  ClassSpec spec;
  spec.name = "chat";
  ArrivalSpec arrival;
  arrival.process = process;
  arrival.stages = std::move(stages);
  arrival.cv = cv;
  spec.arrival = arrival;
  spec.input = DistSpec{};
  spec.input->a = 100;  // fixed
  spec.output = DistSpec{};
  spec.output->a = 10;
  return spec;
}

// Every arrival time (ns) the source offers, until it has none.
std::vector<Tick> all_arrivals(RequestSource& source) {
  std::vector<Tick> out;
  while (const auto next = source.peek_arrival_ns()) {
    out.push_back(*next);
    REQUIRE(source.pop().arrival_ns == *next);
    REQUIRE(out.size() < 10'000'000);  // a staged source must end
  }
  return out;
}

// Arrivals in [from_s, to_s) (the stage ends belong to the stage before, but a continuous
// process never lands exactly on one).
std::int64_t count_between(const std::vector<Tick>& arrivals, double from_s, double to_s) {
  std::int64_t n = 0;
  for (Tick t : arrivals) n += (t > ticks_from_seconds(from_s) && t <= ticks_from_seconds(to_s)) ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("stages: poisson counts per stage are rate x duration within 4 standard deviations", "[workload]") {
  // 5000, 20000, 0 (idle) and 2000 expected; a Poisson count's standard deviation is the
  // square root of its mean (71, 141, 45), so a stage run at a neighbour's rate, or even
  // 10% off its own, is far outside the band.
  const auto source =
      make_source(staged_class(ArrivalSpec::Process::poisson, {{1000, 5}, {1000, 20}, {500, 0}, {1000, 2}}), 0, 11);
  const std::vector<Tick> arrivals = all_arrivals(*source);
  const double expected[] = {5000, 20000, 0, 2000};
  const double bounds[] = {0, 1000, 2000, 2500, 3500};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    const auto n = static_cast<double>(count_between(arrivals, bounds[i], bounds[i + 1]));
    CHECK(std::abs(n - expected[i]) <= 4 * std::sqrt(expected[i]));
  }
  CHECK(count_between(arrivals, 2000, 2500) == 0);  // the idle stage, exactly
  // Nothing after the last stage, and the source says it is done.
  CHECK(arrivals.back() <= ticks_from_seconds(3500));
  CHECK(static_cast<std::int64_t>(arrivals.size()) == count_between(arrivals, 0, 3500));
  CHECK(source->exhausted());
}

TEST_CASE("stages: gamma counts per stage follow each stage's rate", "[workload]") {
  // A renewal process's count over a long window has variance ~ rate x duration x cv^2, so
  // with cv 2 the standard deviation is 2 sqrt(mean) (141 and 283).
  const auto source = make_source(staged_class(ArrivalSpec::Process::gamma, {{1000, 5}, {1000, 20}}, 2.0), 0, 12);
  const std::vector<Tick> arrivals = all_arrivals(*source);
  CHECK(std::abs(static_cast<double>(count_between(arrivals, 0, 1000)) - 5000) <= 4 * 2 * std::sqrt(5000.0));
  CHECK(std::abs(static_cast<double>(count_between(arrivals, 1000, 2000)) - 20000) <= 4 * 2 * std::sqrt(20000.0));
  CHECK(arrivals.back() <= ticks_from_seconds(2000));
}

TEST_CASE("stages: a single poisson stage is the unstaged process cut at its end", "[workload]") {
  // The same stream, the same gaps: staging only ends the process (and restarts it at each
  // boundary), it does not draw differently.
  ClassSpec plain = staged_class(ArrivalSpec::Process::poisson, {});
  plain.arrival->rate_per_s = 5;
  const auto unstaged = make_source(plain, 0, 21);
  const auto staged = make_source(staged_class(ArrivalSpec::Process::poisson, {{100, 5}}), 0, 21);
  const std::vector<Tick> cut = all_arrivals(*staged);
  REQUIRE(cut.size() > 400);
  for (Tick t : cut) REQUIRE(unstaged->pop().arrival_ns == t);
  CHECK(*unstaged->peek_arrival_ns() > ticks_from_seconds(100));  // the first one past the end
}

TEST_CASE("stages: constant arrivals are start + k/rate and int(rate x duration) of them per stage", "[workload]") {
  // Stage 1: 4/s for 2 s -> 0.25, 0.5, ..., 2.0 (8). Stage 2: idle for 1 s. Stage 3: 0.5/s
  // for 3 s -> 1.5 requests on paper, int() = 1, at 3 + 2 = 5 s. Stage 4: 0.1/s for 30 s
  // (0.1 x 30 is 3.0000000000000004 in doubles) -> 3, at 6 + 10, 20, 30 s. Stage 5: 4.6/s
  // for 25 s is 114.99999999999999 in doubles, 115 on paper -> 115, the last at 36 + 25 s.
  const auto source = make_source(
      staged_class(ArrivalSpec::Process::constant, {{2, 4}, {1, 0}, {3, 0.5}, {30, 0.1}, {25, 4.6}}), 0, 1);
  const std::vector<Tick> arrivals = all_arrivals(*source);
  std::vector<Tick> expected;
  for (int k = 1; k <= 8; ++k) expected.push_back(k * 250'000'000);
  expected.push_back(5'000'000'000);
  for (Tick s : {16, 26, 36}) expected.push_back(s * kNsPerSec);
  for (int k = 1; k <= 115; ++k) expected.push_back(ticks_from_seconds(36.0 + k / 4.6));
  CHECK(arrivals == expected);
  CHECK(arrivals.back() == 61 * kNsPerSec);
  CHECK(constant_stage_arrivals({25, 4.6}) == 115);
  CHECK(constant_stage_arrivals({3, 0.5}) == 1);
  CHECK(source->exhausted());
}

TEST_CASE("stages: malformed stages built in code are ConfigErrors naming the key", "[workload]") {
  auto key_of = [](ArrivalSpec spec) {
    try {
      make_arrival_process(spec, "chat", Rng(1, "x"));
    } catch (const ConfigError& e) {
      return e.key();
    }
    return std::string("no error");
  };
  ArrivalSpec spec;
  spec.stages = {{10, 5}, {0, 5}};
  CHECK(key_of(spec) == "workload.chat.arrival.stages.1.duration");
  spec.stages = {{10, 5}, {10, -1}};
  CHECK(key_of(spec) == "workload.chat.arrival.stages.1.rate");
  spec.stages = {{10, 0}, {10, 0}};
  CHECK(key_of(spec) == "workload.chat.arrival.stages");
  spec.stages = {{10, 5}};
  spec.rate_per_s = 5;
  CHECK(key_of(spec) == "workload.chat.arrival.stages");
}

// --- parsing ------------------------------------------------------------------------

namespace {

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

struct BadStages {
  const char* what;
  const char* arrival;  // replaces line 3 of kMinimalScenario (the class's arrival)
  int line;
  const char* key;
  const char* message;
};

const std::vector<BadStages> kBadStages = {
    {"rate and stages together", "    arrival: {process: poisson, rate: 4, stages: [{duration: 10s, rate: 5}]}", 3,
     "workload.0.arrival.stages", "give one of 'rate'"},
    {"neither rate nor stages", "    arrival: {process: poisson}", 3, "workload.0.arrival",
     "missing required key 'rate' (or 'stages'"},
    {"a stage without a duration",
     "    arrival:\n      process: constant\n      stages:\n        - {duration: 10s, rate: 5}\n        - {rate: 5}",
     7, "workload.0.arrival.stages.1", "missing required key 'duration'"},
    {"a stage of zero duration",
     "    arrival:\n      stages:\n        - {duration: 10s, rate: 5}\n        - {duration: 0s, rate: 5}", 6,
     "workload.0.arrival.stages.1.duration", "must last > 0"},
    {"a negative stage rate",
     "    arrival:\n      stages:\n        - {duration: 10s, rate: 5}\n        - {duration: 1m, rate: -1}", 6,
     "workload.0.arrival.stages.1.rate", "must be >= 0, got -1"},
    {"a misspelt stage key", "    arrival: {stages: [{duration: 10s, rat: 5}]}", 3, "workload.0.arrival.stages.0.rat",
     "did you mean 'rate'?"},
    {"a stage without a rate", "    arrival: {stages: [{duration: 10s}]}", 3, "workload.0.arrival.stages.0",
     "missing required key 'rate'"},
    {"no stages", "    arrival: {stages: []}", 3, "workload.0.arrival.stages", "at least one stage"},
    {"only idle stages", "    arrival: {stages: [{duration: 10s, rate: 0}]}", 3, "workload.0.arrival.stages",
     "every stage has rate 0"},
    {"stages of a closed loop", "    arrival: {process: closed, concurrency: 4, stages: [{duration: 10s, rate: 5}]}",
     3, "workload.0.arrival.stages", "does not apply to process 'closed'"},
    {"stages as a mapping", "    arrival: {stages: {duration: 10s, rate: 5}}", 3, "workload.0.arrival.stages",
     "expected a list"},
    {"a duration without unit sense", "    arrival: {stages: [{duration: soon, rate: 5}]}", 3,
     "workload.0.arrival.stages.0.duration", "bad duration"},
};

}  // namespace

TEST_CASE("stages: bad stages name the file and line and key", "[workload][scenario]") {
  for (const BadStages& bad : kBadStages) {
    CAPTURE(bad.what);
    ScenarioDir dir;
    const std::string path = dir.write("s.yaml", edit_line(kMinimalScenario, 3, bad.arrival));
    try {
      load_scenario(path, {});
      FAIL("no error");
    } catch (const ConfigError& e) {
      CAPTURE(e.what());
      CHECK(e.file() == path);
      CHECK(e.line() == bad.line);
      CHECK(e.key() == bad.key);
      CHECK(std::string(e.message()).find(bad.message) != std::string::npos);
    }
  }
}

TEST_CASE("stages: sessions refuse stages while a lengths trace takes them and staged classes need no stop",
          "[workload][scenario]") {
  ScenarioDir dir;
  // No `stop`: the stages end, so the run does.
  std::string yaml = kMinimalScenario;
  yaml = edit_line(yaml, 13, "");
  yaml = edit_line(yaml, 3, "    arrival: {process: poisson, stages: [{duration: 10s, rate: 5}, {duration: 5s, rate: 1}]}");
  const Scenario s = load_scenario(dir.write("ok.yaml", yaml), {});
  REQUIRE(s.workload[0].arrival->stages.size() == 2);
  CHECK(s.workload[0].arrival->stages[1].duration_s == 5.0);
  CHECK(s.workload[0].arrival->stages[1].rate_per_s == 1.0);
  CHECK(s.workload[0].arrival->rate_per_s == 0.0);

  const std::string session = edit_line(
      yaml, 5, "    output: {fixed: 10}\n    session: {turns: {fixed: 2}, new_input: {fixed: 20}}");
  try {
    load_scenario(dir.write("session.yaml", session), {});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "workload.0.arrival.stages");
    CHECK(e.line() == 3);
    CHECK(std::string(e.message()).find("'session'") != std::string::npos);
  }

  // A length-only trace takes stages: its source ends with them, rows left over or not.
  dir.write("lens.csv", "num_prefill_tokens,num_decode_tokens\n100,10\n200,20\n300,30\n400,40\n");
  std::string lengths = edit_line(yaml, 3, "    trace: {format: lengths, path: lens.csv}\n"
                                           "    arrival: {process: constant, stages: [{duration: 1s, rate: 2}]}");
  lengths = edit_line(lengths, 5, "");  // input
  lengths = edit_line(lengths, 5, "");  // output (now on line 5)
  const Scenario traced = load_scenario(dir.write("lengths.yaml", lengths), {});
  const auto source = make_source(traced.workload[0], 0, 1);
  CHECK(all_arrivals(*source) == std::vector<Tick>{500'000'000, 1'000'000'000});
  CHECK(source->exhausted());

  // A synthetic class with one rate still needs a stop.
  try {
    load_scenario(dir.write("endless.yaml", edit_line(yaml, 3, "    arrival: {process: poisson, rate: 4}")), {});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.message()).find("without end") != std::string::npos);
  }
}

}  // namespace arrival_stages_test
