// Hand-traced KV management: watermark and full-reservation admission, swap preemption
// over the host link, and the time requests lose to preemption.
#include <catch2/catch.hpp>

#include "tests/engine/policy_harness.h"

namespace kv_policy_test {

using namespace servesim;
using servesim::testing::PolicyHarness;
using Steps = std::vector<std::string>;
using Times = std::vector<Tick>;

TEST_CASE("watermark: a request is admitted only if the watermark's blocks stay free", "[policy]") {
  // 10 blocks of 4 tokens, watermark 0.2 = 2 blocks. In step 2 A holds 5 blocks; B's
  // 16-token prompt needs 4 of the 5 free, leaving 1 < 2.
  auto with_watermark = [](EngineConfig& c) { c.watermark = 0.2; };
  PolicyHarness h("chunked-prefill", 32, 4, /*kv_blocks=*/10, 4, with_watermark);
  h.submit(1, 16, 2);
  h.submit(2, 16, 2);
  h.sim.run();
  CHECK(h.steps == Steps{"1:16", "1:1", "2:16", "2:1"});  // an idle replica always admits
  CHECK(h.starts == Times{0, 1160, 2170, 3330});

  PolicyHarness none("chunked-prefill", 32, 4, 10, 4);
  none.submit(1, 16, 2);
  none.submit(2, 16, 2);
  none.sim.run();
  CHECK(none.steps == Steps{"1:16", "1:1 2:16", "2:1"});
}

TEST_CASE("reserve-full: a request waits until its whole sequence fits - and nobody is preempted", "[policy]") {
  // The replica_test preemption scenario (6 blocks of 4; each request 4 blocks at its
  // longest), under TensorRT-LLM's GUARANTEED_NO_EVICT rule: B cannot reserve 4 blocks
  // while A still needs one more, so it waits for A instead of being preempted.
  PolicyHarness h("chunked-prefill", 32, 4, /*kv_blocks=*/6, 4,
                  [](EngineConfig& c) { c.kv_admission = KvAdmission::reserve_full; });
  RequestState& a = h.submit(1, 8, 8);
  RequestState& b = h.submit(2, 8, 8);
  h.sim.run();
  Steps expected{"1:8"};
  for (int i = 0; i < 7; ++i) expected.push_back("1:1");
  expected.push_back("2:8");
  for (int i = 0; i < 7; ++i) expected.push_back("2:1");
  CHECK(h.steps == expected);
  CHECK(a.preemptions + b.preemptions == 0);
}

TEST_CASE("swap: a preempted request keeps its KV in host memory and pays the transfer both ways", "[policy]") {
  // The replica_test preemption scenario again. Moving one token's KV costs 1000 bytes over
  // a 1 GB/s link: 1 us per token. B is preempted in step 6 with 11 computed tokens, which
  // go out (11 us added to that step) and come back when B runs again (11 us), as a
  // decode of 1 token instead of a 12-token recompute.
  PolicyHarness h("chunked-prefill", 32, 4, /*kv_blocks=*/6, 4,
                  [](EngineConfig& c) { c.preemption_mode = PreemptionMode::swap; });
  h.replica->set_swap_space(/*capacity_blocks=*/10, /*kv_bytes_per_token=*/1000, /*host_link=*/1e9);
  RequestState& a = h.submit(1, 8, 8);
  RequestState& b = h.submit(2, 8, 8);
  h.sim.run();
  CHECK(h.steps == Steps{"1:8", "1:1 2:8", "1:1 2:1", "1:1 2:1", "1:1 2:1", "1:1", "1:1", "1:1", "2:1", "2:1",
                         "2:1", "2:1"});
  CHECK(h.starts ==
        Times{0, 1080, 2170, 3190, 4210, 5230, 17240, 18250, 19260, 31270, 32280, 33290});
  CHECK(h.plans.at(5).swap_out_tokens == 11);
  CHECK(h.additions.at(5).swap_ns == 11000);
  CHECK(h.additions.at(8).swap_in_tokens == 11);
  CHECK(h.additions.at(8).swap_ns == 11000);
  CHECK(a.preemptions == 0);
  CHECK(b.preemptions == 1);
  CHECK(b.preempted_ns == 31270 - 5230);  // until the step that brought its KV back ended
  CHECK(h.listener.finish_of(2) == 34300);
  CHECK(h.replica->swap_space().used_blocks() == 0);
  CHECK(h.replica->stats().swap_ns == 22000);
}

TEST_CASE("swap: without room in host memory the victim is recomputed instead", "[policy]") {
  PolicyHarness h("chunked-prefill", 32, 4, 6, 4, [](EngineConfig& c) { c.preemption_mode = PreemptionMode::swap; });
  h.replica->set_swap_space(/*capacity_blocks=*/2, 1000, 1e9);  // B's 11 tokens need 3 blocks
  h.submit(1, 8, 8);
  RequestState& b = h.submit(2, 8, 8);
  h.sim.run();
  CHECK(h.plans.at(5).swap_out_tokens == 0);
  bool saw_recompute = false;
  for (const auto& s : h.steps) saw_recompute |= s == "2:12";
  CHECK(saw_recompute);
  CHECK(b.preemptions == 1);
}

TEST_CASE("recompute: the time lost runs from the preemption to the end of the recompute", "[policy]") {
  PolicyHarness h("chunked-prefill", 32, 4, 6, 4);
  h.submit(1, 8, 8);
  RequestState& b = h.submit(2, 8, 8);
  h.sim.run();
  // B is preempted at 5230 (step 6) and recomputes its 12 tokens in step 9, 8260-9380.
  CHECK(h.starts.at(5) == 5230);
  CHECK(h.steps.at(8) == "2:12");
  CHECK(h.starts.at(8) == 8260);
  CHECK(b.preempted_ns == 9380 - 5230);
  // The record of a completed request carries it; the summary adds it up.
  const RunSummary summary = h.metrics.summarize(h.listener.finish_of(1));
  CHECK(summary.overall.get("preemptions") == 1);
  CHECK(summary.overall.get("preempted_s") == Approx(4150e-9));
}

}  // namespace kv_policy_test
