// Async scheduling: a step's CPU overheads overlap the GPU's work, so each step lasts
// max(model, cpu) instead of model + cpu (docs/engine.md, "CPU overheads").
#include <catch2/catch.hpp>

#include "sim/scenario/engine_parse.h"
#include "tests/engine/policy_harness.h"

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
