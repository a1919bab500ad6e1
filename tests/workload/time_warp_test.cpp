// trace.rate_scale (sim/workload/time_warp.h): a trace's own timestamps with its rate scaled
// over time, checked against the warp worked out by hand and against the unscaled trace.
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/workload/source.h"
#include "sim/workload/time_warp.h"

namespace time_warp_test {

using namespace servesim;
using servesim::testing::ScenarioDir;

TEST_CASE("time warp: each stretch of trace time divided by its scale", "[workload][rate_scale]") {
  const TimeWarp warp({{0, 1}, {10, 2}, {20, 0.5}});
  const Tick s = 1'000'000'000;
  CHECK(warp.warp(0) == 0);
  CHECK(warp.warp(5 * s) == 5 * s);            // scale 1: as recorded
  CHECK(warp.warp(10 * s) == 10 * s);
  CHECK(warp.warp(14 * s) == 12 * s);          // 10 + 4 / 2
  CHECK(warp.warp(20 * s) == 15 * s);          // 10 + 10 / 2
  CHECK(warp.warp(22 * s) == 19 * s);          // 15 + 2 / 0.5
  const TimeWarp identity({{0, 1}});
  CHECK(identity.warp(123'456'789'012'345) == 123'456'789'012'345);  // integer ns: exact
}

// An inner source that records what reaches it, to check what the warp passes through.
class RecordingSource final : public RequestSource {
 public:
  std::optional<Tick> peek_arrival_ns() override { return 30'000'000'000; }
  RequestSpec pop() override {
    RequestSpec r;
    r.arrival_ns = 30'000'000'000;
    r.prompt_tokens = 7;
    return r;
  }
  void on_finished(const RequestSpec& request, Tick now_ns) override {
    finished_prompt_tokens += request.prompt_tokens;
    last_finish_ns = now_ns;
  }
  bool exhausted() override { return false; }
  std::uint64_t raised_input_samples() const override { return 3; }
  std::int64_t finished_prompt_tokens = 0;
  Tick last_finish_ns = -1;
};

TEST_CASE("time warp: the warped source moves only times and passes completions on", "[workload][rate_scale]") {
  auto inner = std::make_unique<RecordingSource>();
  RecordingSource* seen = inner.get();
  WarpedSource warped(std::move(inner), TimeWarp({{0, 1}, {10, 2}}));
  const Tick s = 1'000'000'000;
  CHECK(warped.peek_arrival_ns() == 20 * s);  // 10 + (30 - 10) / 2
  const RequestSpec r = warped.pop();
  CHECK(r.arrival_ns == 20 * s);
  CHECK(r.prompt_tokens == 7);
  warped.on_finished(r, 25 * s);
  CHECK(seen->finished_prompt_tokens == 7);
  CHECK(seen->last_finish_ns == 25 * s);
  CHECK(warped.raised_input_samples() == 3);
  CHECK_FALSE(warped.exhausted());
}

TEST_CASE("time warp: the Azure trace at twice its rate after ten minutes", "[workload][rate_scale]") {
  ClassSpec plain;
  plain.name = "conv";
  plain.trace = TraceSpec{};
  plain.trace->format = "azure";
  plain.trace->path = std::string(SERVESIM_SOURCE_DIR) + "/data/traces/azure_llm_2023_conv.csv";
  ClassSpec scaled = plain;
  scaled.trace->rate_scale = {{0, 1}, {600, 2}};
  const auto a = make_source(plain, 0, 1);
  const auto b = make_source(scaled, 0, 1);
  const Tick ten_minutes = 600'000'000'000;
  int before = 0, after = 0;
  for (int i = 0; i < 5000 && !a->exhausted(); ++i) {
    REQUIRE(a->peek_arrival_ns().has_value());
    REQUIRE(b->peek_arrival_ns().has_value());
    const RequestSpec x = a->pop(), y = b->pop();
    CHECK(y.prompt_tokens == x.prompt_tokens);
    CHECK(y.output_tokens == x.output_tokens);
    const Tick want = x.arrival_ns < ten_minutes ? x.arrival_ns : ten_minutes + (x.arrival_ns - ten_minutes + 1) / 2;
    CHECK(std::abs(y.arrival_ns - want) <= 1);  // half a ns rounds either way
    (x.arrival_ns < ten_minutes ? before : after) += 1;
  }
  CHECK(before > 100);
  CHECK(after > 100);
}

TEST_CASE("time warp: a bad scale file or format is refused with file - line and key", "[workload][rate_scale]") {
  ScenarioDir dir;
  const auto scenario = [&](const std::string& trace) {
    return dir.write("s.yaml", "workload:\n  - class: chat\n    trace: " + trace + R"(
cluster:
  pools:
    - model: tiny-model.yaml
      hardware: tiny-gpu.yaml
      tp: 1
  router: round-robin
)");
  };
  dir.write("zero.csv", "time_s,scale\n0,1\n10,0\n");
  try {
    load_scenario(scenario("{format: azure, path: conv.csv, rate_scale: {path: zero.csv}}"));
    FAIL("a scale of 0 was taken");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.file(), Catch::EndsWith("zero.csv"));
    CHECK(e.line() == 3);
    CHECK_THAT(e.message(), Catch::Contains("a scale is from 0.001 to 1000, got 0"));
  }
  dir.write("late.csv", "time_s,scale\n5,1\n");
  try {
    load_scenario(scenario("{format: azure, path: conv.csv, rate_scale: {path: late.csv}}"));
    FAIL("a scale starting after 0 was taken");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 2);
    CHECK_THAT(e.message(), Catch::Contains("the curve starts at time 0"));
  }
  try {
    load_scenario(scenario("{format: lengths, path: conv.csv, rate_scale: {path: zero.csv}}"));
    FAIL("rate_scale on a lengths trace was taken");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "workload.0.trace.rate_scale");
    CHECK_THAT(e.message(), Catch::Contains("formats azure, vidur, mooncake, csv only"));
  }
}

}  // namespace time_warp_test
