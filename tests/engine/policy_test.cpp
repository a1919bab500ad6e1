// Hand-traced runs of each scheduling policy: every step's batch ("id:tokens") and start
// time is asserted. Costs: 1000 ns per step + 10 ns per token computed (policy_harness.h).
#include <catch2/catch.hpp>

#include "tests/engine/policy_harness.h"

namespace policy_test {

using namespace servesim;
using servesim::testing::PolicyHarness;
using Steps = std::vector<std::string>;
using Times = std::vector<Tick>;

TEST_CASE("static: requests arriving during a batch wait until its last request finishes", "[policy]") {
  PolicyHarness h("static", /*budget=*/16, /*max_seqs=*/2, /*kv_blocks=*/100, /*block=*/4);
  h.submit(1, 4, 3);  // the replica is idle: A's batch starts at once, alone
  h.submit(2, 5, 1);
  h.submit(3, 3, 2);
  h.submit(4, 2, 1);
  h.sim.run();
  // A decodes to its end alone (continuous would have admitted B and C in step 2); then
  // the next batch takes B and C (max_num_seqs 2), and D waits for that batch to empty
  // although B left after one step.
  CHECK(h.steps == Steps{"1:4", "1:1", "1:1", "2:5 3:3", "3:1", "4:2"});
  CHECK(h.starts == Times{0, 1040, 2050, 3060, 4140, 5150});
  CHECK(h.listener.finish_of(1) == 3060);
  CHECK(h.listener.finish_of(2) == 4140);
  CHECK(h.listener.finish_of(3) == 5150);
  CHECK(h.listener.finish_of(4) == 6170);
}

TEST_CASE("static: a batch reserves KV for whole sequences - so it never preempts", "[policy]") {
  // 4 blocks of 4 tokens; B, C and D each need 2 blocks at their longest (4 + 4 tokens).
  PolicyHarness h("static", 16, 4, /*kv_blocks=*/4, 4);
  h.submit(1, 1, 1);  // occupies the first step so that the others arrive together
  RequestState& b = h.submit(2, 4, 5);
  RequestState& c = h.submit(3, 4, 5);
  RequestState& d = h.submit(4, 4, 5);
  h.sim.run();
  Steps expected{"1:1", "2:4 3:4"};
  for (int i = 0; i < 4; ++i) expected.push_back("2:1 3:1");
  expected.push_back("4:4");
  for (int i = 0; i < 4; ++i) expected.push_back("4:1");
  CHECK(h.steps == expected);  // D did not fit beside B and C's reservations
  CHECK(b.preemptions + c.preemptions + d.preemptions == 0);
  CHECK(h.listener.finish_of(4) == 11250);

  // The same requests under chunked-prefill all start at once and then run out of blocks.
  PolicyHarness greedy("chunked-prefill", 16, 4, 4, 4);
  greedy.submit(1, 1, 1);
  greedy.submit(2, 4, 5);
  greedy.submit(3, 4, 5);
  greedy.submit(4, 4, 5);
  greedy.sim.run();
  CHECK(greedy.steps.at(1) == "2:4 3:4 4:4");
  CHECK(greedy.replica->stats().preemptions > 0);
}

TEST_CASE("static: a prompt longer than the token budget is rejected with a reason", "[policy]") {
  PolicyHarness h("static", 16, 4, 100, 4);
  h.submit(1, 17, 1);
  h.sim.run();
  CHECK(h.steps.empty());
  CHECK(h.metrics.rejected() == 1);
}

TEST_CASE("decode-priority: new requests join only when decodes fall below the target", "[policy]") {
  PolicyHarness h("decode-priority", /*budget=*/8, /*max_seqs=*/4, 100, 4,
                  [](EngineConfig& c) { c.decode_target_batch = 2; });
  h.submit(1, 3, 4);
  h.submit(2, 3, 4);
  h.submit(3, 2, 3);
  h.submit_at(1500, 4, 2, 2);  // arrives while A, B and C all decode
  h.sim.run();
  // Step 2 starts with one decode (A) < 2: B and C join. Steps 3 and 4 start with three
  // decodes: D waits (chunked-prefill would take it in step 3) until A and C finish and
  // one decode (B) is left.
  CHECK(h.steps == Steps{"1:3", "1:1 2:3 3:2", "1:1 2:1 3:1", "1:1 2:1 3:1", "2:1 4:2", "4:1"});
  CHECK(h.starts == Times{0, 1030, 2090, 3120, 4150, 5180});
  CHECK(h.listener.finish_of(4) == 6190);

  PolicyHarness chunked("chunked-prefill", 8, 4, 100, 4);
  chunked.submit(1, 3, 4);
  chunked.submit(2, 3, 4);
  chunked.submit(3, 2, 3);
  chunked.submit_at(1500, 4, 2, 2);
  chunked.sim.run();
  CHECK(chunked.steps.at(2) == "1:1 2:1 3:1 4:2");
}

TEST_CASE("decode-priority: the target defaults to half of max_num_seqs", "[policy]") {
  EngineConfig c;
  c.max_num_seqs = 7;
  CHECK(c.decode_target() == 4);
  c.decode_target_batch = 2;
  CHECK(c.decode_target() == 2);
}

TEST_CASE("priority: the waiting queue is served by priority - then arrival", "[policy]") {
  PolicyHarness h("priority", /*budget=*/8, /*max_seqs=*/2, 100, 4);
  h.submit(1, 4, 3, /*priority=*/0);
  h.submit(2, 4, 2, 0);
  h.submit(3, 4, 2, /*priority=*/5);  // arrived after 2, served before it
  h.sim.run();
  CHECK(h.steps == Steps{"1:4", "1:1 3:4", "1:1 3:1", "2:4", "2:1"});
  CHECK(h.starts == Times{0, 1040, 2090, 3110, 4150});
}

TEST_CASE("priority: equal priorities keep arrival order", "[policy]") {
  PolicyHarness h("priority", 8, 2, 100, 4);
  h.submit(1, 4, 3, 1);
  h.submit(2, 4, 2, 1);
  h.submit(3, 4, 2, 1);
  h.sim.run();
  CHECK(h.steps.at(1) == "1:1 2:4");
}

TEST_CASE("priority: with preempt_lower_priority a higher-priority arrival takes a running slot", "[policy]") {
  PolicyHarness h("priority", 8, /*max_seqs=*/1, 100, 4, [](EngineConfig& c) { c.preempt_lower_priority = true; });
  RequestState& low = h.submit(1, 4, 4, 0);
  RequestState& high = h.submit(2, 2, 2, 3);
  h.sim.run();
  // Step 2: the low request's decode is taken back, it is preempted, and the high one
  // runs; the low one then recomputes its prompt and first output (5 tokens).
  CHECK(h.steps == Steps{"1:4", "2:2", "2:1", "1:5", "1:1", "1:1"});
  CHECK(h.starts == Times{0, 1040, 2060, 3070, 4120, 5130});
  CHECK(low.preemptions == 1);
  CHECK(high.preemptions == 0);
  // Lost: from the preemption (1040) until it had recomputed its 4 tokens (end of 1:5).
  CHECK(low.preempted_ns == 4120 - 1040);
  CHECK(h.listener.finish_of(1) == 6140);

  PolicyHarness plain("priority", 8, 1, 100, 4);  // without: the high one waits its turn
  plain.submit(1, 4, 4, 0);
  plain.submit(2, 2, 2, 3);
  plain.sim.run();
  CHECK(plain.steps == Steps{"1:4", "1:1", "1:1", "1:1", "2:2", "2:1"});
}

TEST_CASE("priority: when blocks run out the lowest-priority request is the victim", "[policy]") {
  // 6 blocks of 4 tokens; each request needs 4 blocks at its longest. The low-priority
  // one is older, so newest-first (vLLM FCFS) would have picked the other.
  PolicyHarness h("priority", 32, 4, /*kv_blocks=*/6, 4);
  RequestState& low = h.submit(1, 8, 8, 0);
  RequestState& high = h.submit(2, 8, 8, 1);
  h.sim.run();
  CHECK(low.preemptions == 1);
  CHECK(high.preemptions == 0);
  CHECK(h.metrics.completed() == 2);
}

TEST_CASE("inflight: whole prompts join the decodes' step only if they fit what is left", "[policy]") {
  PolicyHarness h("inflight", /*budget=*/8, 4, 100, 4);
  h.submit(1, 6, 3);
  h.submit(2, 8, 1);  // 8 tokens never fit beside a decode: it waits for an empty step
  h.submit(3, 2, 2);  // and C, behind it, waits too (no skipping ahead)
  h.submit(4, 8, 2);  // prompt + outputs over the budget: its recompute could never run
  h.sim.run();
  CHECK(h.steps == Steps{"1:6", "1:1", "1:1", "2:8", "3:2", "3:1"});
  CHECK(h.starts == Times{0, 1060, 2070, 3080, 4160, 5180});
  CHECK(h.metrics.rejected() == 1);
}

TEST_CASE("prefill-first: prompt chunks run in prefill-only steps while decodes wait", "[policy]") {
  PolicyHarness h("prefill-first", /*budget=*/8, 4, 100, 4, [](EngineConfig& c) { c.prefill_chunk_tokens = 4; });
  h.submit(1, 6, 3);
  h.submit(2, 3, 2);
  h.submit_at(2500, 3, 5, 2);
  h.sim.run();
  // Chunks of at most 4 tokens; C's two prompt steps stall A's decode (SGLang without
  // mixed chunks), which chunked-prefill would have run beside them.
  CHECK(h.steps == Steps{"1:4", "1:2 2:3", "1:1 2:1", "3:4", "3:1", "1:1 3:1"});
  CHECK(h.starts == Times{0, 1040, 2090, 3110, 4150, 5160});
}

TEST_CASE("chunked-prefill: prefill_chunk_tokens caps one request's prompt chunk", "[policy]") {
  PolicyHarness h("chunked-prefill", 16, 4, 100, 4, [](EngineConfig& c) { c.prefill_chunk_tokens = 4; });
  h.submit(1, 10, 2);
  h.submit(2, 6, 1);
  h.sim.run();
  CHECK(h.steps == Steps{"1:4", "1:4 2:4", "1:2 2:2", "1:1"});
}

}  // namespace policy_test
