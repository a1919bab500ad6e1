// Async scheduling: a step's CPU overheads overlap the GPU's work, so each step lasts
// max(model, cpu) instead of model + cpu, and each step is planned as the one before it
// starts, so a request arriving meanwhile waits one step more (docs/engine.md, "CPU
// overheads").
#include <catch2/catch.hpp>

#include "sim/scenario/engine_parse.h"
#include "tests/engine/policy_harness.h"

namespace async_scheduling_test {

using namespace servesim;
using servesim::testing::PolicyHarness;
using Times = std::vector<Tick>;

TEST_CASE("async scheduling: a step lasts the longer of its CPU work and its GPU work", "[policy]") {
  // engine_extras_test's overheads scenario with the CPU work overlapped. Model parts:
  // 1080, 1070, 1020, 1010 ns; CPU parts: 2000 + 500 (A new) = 2500, 2000 + 500 (B new)
  // + 2 x 100 = 2700, 2000 + 200 = 2200, 2000 + 100 = 2100: every step is CPU-bound.
  PolicyHarness h("chunked-prefill", 8, 4, 100, 4, [](EngineConfig& c) {
    c.async_scheduling = true;
    c.overheads.per_step_ns = 2000;
    c.overheads.per_request_ns = 500;
    c.overheads.per_token_ns = 100;
  });
  h.submit(1, 10, 3);
  h.submit(2, 5, 2);
  h.sim.run();
  CHECK(h.durations == Times{2500, 2700, 2200, 2100});
  // Only what outlasts the GPU is overhead: 1420 + 1630 + 1180 + 1090.
  CHECK(h.replica->stats().overhead_ns == 5320);
  CHECK(h.replica->stats().busy_ns == 9500);
}

TEST_CASE("async scheduling: CPU work shorter than the GPU's adds nothing", "[policy]") {
  PolicyHarness h("chunked-prefill", 8, 4, 100, 4, [](EngineConfig& c) {
    c.async_scheduling = true;
    c.overheads.per_step_ns = 900;
  });
  h.submit(1, 10, 3);
  h.submit(2, 5, 2);
  h.sim.run();
  CHECK(h.durations == Times{1080, 1070, 1020, 1010});
  CHECK(h.replica->stats().overhead_ns == 0);
}

namespace {

using Steps = std::vector<std::string>;

// Request 1 (10-token prompt, 5 tokens out) starts at 0; request 2 (10-token prompt, 2 out)
// arrives at `second_ns`, during request 1's first step (0 to 1100 ns: 1000 + 10 x 10).
std::unique_ptr<PolicyHarness> two_requests(bool async, Tick second_ns, std::int64_t first_output = 5) {
  auto h = std::make_unique<PolicyHarness>("chunked-prefill", 100, 4, 100, 4,
                                           [async](EngineConfig& c) { c.async_scheduling = async; });
  h->submit(1, 10, first_output);
  h->submit_at(second_ns, 2, 10, 2);
  return h;
}

}  // namespace

TEST_CASE("async scheduling: a request arriving during a step joins the step after the next", "[policy]") {
  // The next step was planned as the step in flight started (vLLM's batch queue of two,
  // SGLang's and TensorRT-LLM's overlap loops), so request 2 misses it: steps start at 0,
  // 1100, 2110 (1000 + 10 x 1 for a lone decode) and request 2's prompt is in the third.
  const auto sync = two_requests(false, 500);
  sync->sim.run();
  CHECK(sync->steps == Steps{"1:10", "1:1 2:10", "1:1 2:1", "1:1", "1:1"});
  const auto async = two_requests(true, 500);
  async->sim.run();
  CHECK(async->steps == Steps{"1:10", "1:1", "1:1 2:10", "1:1 2:1", "1:1"});
  CHECK(async->starts == Times{0, 1100, 2110, 3220, 4240});
  // Its first token: the end of the step after the next (2110 + 1110), not of the next.
  CHECK(sync->states[1]->first_token_ns == 2210);
  CHECK(async->states[1]->first_token_ns == 3220);
}

TEST_CASE("async scheduling: a request arriving as a step starts is in time for the next", "[policy]") {
  // Arriving at the instant request 1's step starts (the plan of the next step comes after
  // it), request 2 joins the second step as without async scheduling.
  const auto h = two_requests(true, 0);
  h->sim.run();
  CHECK(h->steps == Steps{"1:10", "1:1 2:10", "1:1 2:1", "1:1", "1:1"});
}

TEST_CASE("async scheduling: when the planned step is empty a late arrival starts at once", "[policy]") {
  // Request 1 wants one token: its prefill step is its last, so no next step was planned
  // and request 2, which arrived during it, starts as it ends.
  const auto h = two_requests(true, 500, 1);
  h->sim.run();
  CHECK(h->steps == Steps{"1:10", "2:10", "2:1"});
  CHECK(h->starts == Times{0, 1100, 2200});
}

TEST_CASE("async scheduling: a late arrival counts as waiting and can be withdrawn", "[policy]") {
  const auto h = two_requests(true, 500);
  RequestState& second = *h->states[1];
  bool withdrawn = false;
  h->sim.schedule_at(600, [&] {
    CHECK(h->replica->num_waiting() == 1);
    CHECK(h->replica->outstanding() == 2);
    withdrawn = h->replica->withdraw_unscheduled(second, "timeout");
    CHECK(h->replica->num_waiting() == 0);
  });
  h->sim.run();
  CHECK(withdrawn);
  CHECK(h->steps == Steps{"1:10", "1:1", "1:1", "1:1", "1:1"});
  CHECK(h->listener.finish_of(2) == 600);
}

TEST_CASE("cuda graphs: vLLM's default largest capture size follows its source rule", "[policy]") {
  // min(2 x max_num_seqs, 512, max_batched_tokens), then the largest of [1, 2, 4] +
  // range(8, 256, 8) + range(256, cap + 1, 16) within it.
  CHECK(vllm_cuda_graph_max_batch(1024, 8192) == 512);
  CHECK(vllm_cuda_graph_max_batch(256, 8192) == 512);
  CHECK(vllm_cuda_graph_max_batch(100, 8192) == 200);
  CHECK(vllm_cuda_graph_max_batch(3, 8192) == 4);
  CHECK(vllm_cuda_graph_max_batch(150, 8192) == 288);
  CHECK(vllm_cuda_graph_max_batch(1024, 300) == 288);  // 300 is not a capture size: 288
}

}  // namespace async_scheduling_test
