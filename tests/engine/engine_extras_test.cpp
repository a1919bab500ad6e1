// CPU overheads added to each step, and the context-limit rule, on hand-traced runs.
#include <catch2/catch.hpp>

#include "tests/engine/policy_harness.h"

namespace engine_extras_test {

using namespace servesim;
using servesim::testing::PolicyHarness;
using Steps = std::vector<std::string>;
using Times = std::vector<Tick>;

TEST_CASE("overheads: per step - per first-scheduled request and per sampled token lengthen each step",
          "[policy]") {
  // The replica_test chunked-prefill scenario with 2 us per step, 0.5 us per new request
  // and 0.1 us per output token; the model's part is 1000 + 10/token as before.
  PolicyHarness h("chunked-prefill", 8, 4, 100, 4, [](EngineConfig& c) {
    c.overheads.per_step_ns = 2000;
    c.overheads.per_request_ns = 500;
    c.overheads.per_token_ns = 100;
  });
  RequestState& a = h.submit(1, 10, 3);
  RequestState& b = h.submit(2, 5, 2);
  h.sim.run();
  CHECK(h.steps == Steps{"1:8", "1:2 2:5", "1:1 2:1", "1:1"});
  // step 1: 1080 + 2000 + 500 (A is new), no token; step 2: 1070 + 2000 + 500 (B is new)
  // + 200 (A's and B's first tokens); step 3: 1020 + 2000 + 200; step 4: 1010 + 2000 + 100.
  CHECK(h.durations == Times{3580, 3770, 3220, 3110});
  CHECK(h.starts == Times{0, 3580, 7350, 10570});
  CHECK(a.first_token_ns == 7350);
  CHECK(b.first_token_ns == 7350);
  CHECK(h.listener.finish_of(1) == 13680);
  CHECK(h.additions.at(1).overhead_ns == 2700);
  CHECK(h.replica->stats().overhead_ns == 4 * 2000 + 2 * 500 + 5 * 100);
  // At batch 1-2 the overheads are most of each step: 9.5 of 13.68 us here.
  CHECK(h.replica->stats().busy_ns == 13680);
}

TEST_CASE("context limit: reject refuses a sequence longer than the model's context", "[policy]") {
  PolicyHarness h("chunked-prefill", 64, 4, 100, 4, {}, /*max_context=*/20);
  h.submit(1, 15, 10);
  h.sim.run();
  CHECK(h.steps.empty());
  CHECK(h.metrics.rejected() == 1);
  const RunSummary s = h.metrics.summarize(0);
  CHECK(s.overall.rejected_reasons.at("exceeds_max_context") == 1);
}

TEST_CASE("context limit: truncate cuts the output first - then the prompt - and counts it", "[policy]") {
  PolicyHarness h("chunked-prefill", 64, 4, 100, 4,
                  [](EngineConfig& c) { c.on_context_overflow = ContextOverflow::truncate; }, 20);
  RequestState& fits = h.submit(1, 10, 10);        // exactly 20: untouched
  RequestState& long_out = h.submit(2, 15, 10);    // output cut to 5
  RequestState& long_in = h.submit(3, 30, 4);      // prompt cut to 19, output to 1
  h.sim.run();
  CHECK(fits.spec.output_tokens == 10);
  CHECK(fits.truncated_tokens == 0);
  CHECK(long_out.spec.prompt_tokens == 15);
  CHECK(long_out.spec.output_tokens == 5);
  CHECK(long_out.truncated_tokens == 5);
  CHECK(long_in.spec.prompt_tokens == 19);
  CHECK(long_in.spec.output_tokens == 1);
  CHECK(long_in.truncated_tokens == 14);
  CHECK(h.metrics.completed() == 3);
  const RunSummary s = h.metrics.summarize(h.sim.now());
  CHECK(s.overall.get("truncated") == 2);
  CHECK(s.overall.get("total_output_tokens") == 10 + 5 + 1);
}

}  // namespace engine_extras_test
