// Latency attribution and GPU-time shares (docs/metrics.md): hand-traced steps of one
// replica, and every request of a whole run summing exactly to its measured latencies.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/engine/replica.h"
#include "sim/metrics/replica_metrics.h"
#include "sim/scenario/scenario_loader.h"

namespace attribution_test {

using namespace servesim;

namespace {

// 1 us per step, 10 ns per token computed and (optionally) 1 ns per past key a prompt chunk
// attends over: easy to add up by hand, and then a cached prefix costs something to read.
class AffineCost final : public CostModel {
 public:
  explicit AffineCost(Tick per_past_key_ns) : per_past_key_ns_(per_past_key_ns) {}
  StepCost step_cost(const BatchShape& b) const override {
    StepCost c;
    c.total_ns = 1000 + 10 * b.total_tokens();
    for (const auto& p : b.prefills) c.total_ns += per_past_key_ns_ * p.past_tokens;
    return c;
  }
  std::string describe() const override { return "affine test model"; }

 private:
  Tick per_past_key_ns_;
};

struct Done : ReplicaListener {
  void on_request_done(RequestState&, Tick) override {}
};

struct Harness {
  Simulator sim;
  MetricsRecorder metrics{{"default"}, {"main"}};
  ReplicaMetrics measured{metrics, 0};  // the metrics' subscription to the replica
  Done listener;
  EngineConfig config;
  std::unique_ptr<Replica> replica;
  std::vector<std::unique_ptr<RequestState>> states;

  explicit Harness(bool prefix_cache = false) {
    config.policy = "chunked-prefill";
    config.max_batched_tokens = 8;
    config.max_num_seqs = 4;
    config.block_size = 4;
    config.prefix_cache = prefix_cache;
    replica = std::make_unique<Replica>(sim, 0, 0, config, 100, make_policy_registry().find("chunked-prefill")->factory(),
                                        std::make_shared<AffineCost>(prefix_cache ? 1 : 0), measured, listener, 0);
  }
  RequestState& submit(std::uint64_t id, std::int64_t prompt, std::int64_t output,
                       std::vector<std::uint64_t> hashes = {}) {
    states.push_back(std::make_unique<RequestState>());
    RequestState& r = *states.back();
    r.spec.id = id;
    r.spec.prompt_tokens = prompt;
    r.spec.output_tokens = output;
    r.spec.arrival_ns = sim.now();
    r.spec.block_hashes = std::move(hashes);
    replica->submit(r);
    return r;
  }
};

}  // namespace

TEST_CASE("attribution: chunks sharing prefill steps split them by tokens and sum to the TTFT", "[metrics][attribution]") {
  // The trace of tests/engine/replica_test.cpp with a budget of 8: steps "1:8" [0 1080],
  // "1:2 2:5" [1080 2150] (both prompts end: first tokens at 2150), "1:1 2:1" [2150 3170],
  // "1:1" [3170 4180].
  Harness h;
  RequestState& a = h.submit(1, 10, 3);
  RequestState& b = h.submit(2, 5, 2);
  h.sim.run();
  REQUIRE(a.first_token_ns == 2150);
  REQUIRE(a.last_token_ns == 4180);
  // A: no queue; all of step 1 (1080) and 2/7 of step 2's 1070 (305, rounded down); the
  // other 765 of step 2 were B's.
  CHECK(a.acct.ttft.queue_ns == 0);
  CHECK(a.acct.ttft.prefill_compute_ns == 1080 + 305);
  CHECK(a.acct.ttft.batch_share_ns == 765);
  CHECK(a.acct.ttft.total() == 2150);
  // B: queued through step 1, then 5/7 of step 2 (764) and 306 shared.
  CHECK(b.acct.ttft.queue_ns == 1080);
  CHECK(b.acct.ttft.prefill_compute_ns == 764);
  CHECK(b.acct.ttft.batch_share_ns == 306);
  CHECK(b.acct.ttft.total() == 2150);
  // Pure decode steps are all decode compute: A's two gaps 1020 + 1010, B's one 1020.
  CHECK(a.acct.decode.decode_compute_ns == 2030);
  CHECK(a.acct.decode.total() == 4180 - 2150);
  CHECK(b.acct.decode.decode_compute_ns == 1020);
  CHECK(b.acct.decode.prefill_interference_ns == 0);
  CHECK(a.acct.max_itl_ns == 1020);
  // GPU time: A 1080 + 1070 x 2/7 + 1020/2 + 1010; B 1070 x 5/7 + 1020/2; together every
  // step's 4180 ns.
  CHECK(a.acct.gpu.prefill_ns() == Approx(1080 + 1070.0 * 2 / 7));
  CHECK(a.acct.gpu.decode_ns() == Approx(510 + 1010));
  CHECK(b.acct.gpu.prefill_ns() == Approx(1070.0 * 5 / 7));
  CHECK(b.acct.gpu.decode_ns() == Approx(510));
  CHECK(a.acct.gpu.total_ns() + b.acct.gpu.total_ns() == Approx(4180));
}

TEST_CASE("attribution: a prompt joining a decode step is charged what it adds and the decode sees it as interference",
          "[metrics][attribution]") {
  Harness h;
  RequestState& a = h.submit(1, 4, 3);  // step 1: "1:4" [0 1040], first token at 1040
  RequestState* b = nullptr;
  h.sim.schedule_at(500, [&] { b = &h.submit(2, 5, 1); });
  h.sim.run();
  // Step 2 "1:1 2:5" [1040 2100]: the decode alone would cost 1010, so the prompt added 50.
  // Step 3 "1:1" [2100 3110].
  REQUIRE(b != nullptr);
  REQUIRE(b->first_token_ns == 2100);
  CHECK(b->acct.ttft.queue_ns == 540);
  CHECK(b->acct.ttft.prefill_compute_ns == 50);
  CHECK(b->acct.ttft.batch_share_ns == 1010);
  CHECK(b->acct.ttft.total() == 2100 - 500);
  CHECK(a.acct.decode.decode_compute_ns == 1010 + 1010);
  CHECK(a.acct.decode.prefill_interference_ns == 50);
  CHECK(a.acct.decode.total() == 3110 - 1040);
  CHECK(a.acct.max_itl_ns == 1060);
  CHECK(b->acct.gpu.prefill_ns() == Approx(50));
  CHECK(a.acct.gpu.decode_ns() == Approx(1010 + 1010));
}

TEST_CASE("attribution: a prefix-cache hit charges its KV read to cached tokens and records the prefill it saved",
          "[metrics][attribution]") {
  Harness h(/*prefix_cache=*/true);
  h.submit(1, 6, 1, {11});  // one full 4-token block, hashed
  h.sim.run();
  RequestState& b = h.submit(2, 6, 1, {11});  // hits those 4 tokens, computes 2 over them
  h.sim.run();
  REQUIRE(b.cached_prompt_tokens == 4);
  // Its one step: 1000 + 10 x 2 + 4 past keys = 1024; without the cached keys 1020, so 4 ns
  // of it are the cached tokens'. Computing all 6 would have cost 1060: 36 ns saved.
  CHECK(b.acct.gpu.cached_ns() == Approx(4));
  CHECK(b.acct.gpu.prefill_ns() == Approx(1020));
  CHECK(b.acct.prefill_saved_ns == 36);
  CHECK(b.acct.ttft.prefill_compute_ns == 1024);
}

TEST_CASE("attribution: every request of a run with preemptions and prefix hits sums exactly to its latencies",
          "[metrics][attribution]") {
  // A KV cache far too small for the load forces preemptions and recompute; sessions and
  // shared prompts give prefix hits; engine overheads give every step an extra part.
  Scenario s = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/scenarios/prefix-caching.yaml",
                             {"stop.requests=400", "cluster.pools.0.engine.kv_cache_tokens=24000",
                              "cluster.pools.0.engine.max_batched_tokens=2048"});
  s.cluster.pools[0].engine.overheads.per_step_ns = 300'000;
  s.cluster.pools[0].engine.overheads.per_token_ns = 20'000;
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  std::int64_t checked = 0, preempted = 0, with_gaps = 0;
  Tick preemption_ns = 0, overhead_ns = 0, interference_ns = 0;
  double gpu_ns = 0;
  sim.add_request_sink([&](const RequestRecord& r) {
    if (r.outcome != Outcome::completed) return;
    ++checked;
    const RequestAccounting& a = r.acct;
    REQUIRE(a.ttft.total() + r.frontend_ns == r.ttft_ns());  // the front end is a part of its own
    REQUIRE(a.ttft.queue_ns == r.queue_ns());
    if (r.output_tokens_done >= 2) {
      ++with_gaps;
      REQUIRE(a.decode.total() == r.finish_ns - r.first_token_ns);
      REQUIRE(a.max_itl_ns >= r.tpot_ns());
    }
    if (r.preemptions > 0) ++preempted;
    preemption_ns += a.ttft.preemption_ns + a.decode.preemption_ns;
    overhead_ns += a.ttft.overhead_ns + a.decode.overhead_ns;
    interference_ns += a.decode.prefill_interference_ns;
    gpu_ns += a.gpu.total_ns();
  });
  const RunResult result = sim.run();
  REQUIRE(result.completed == 400);
  CHECK(checked == 400);
  CHECK(with_gaps == 400);
  CHECK(preempted > 0);
  CHECK(preemption_ns > 0);
  CHECK(overhead_ns > 0);
  CHECK(interference_ns > 0);
  // Every step's time is charged to the requests in it, and they all completed.
  double busy_ns = 0;
  for (const auto& replica : sim.pools()[0]->replicas()) busy_ns += static_cast<double>(replica->stats().busy_ns);
  CHECK(gpu_ns == Approx(busy_ns).epsilon(1e-9));
  // The summary's mean parts add up to the mean TTFT and ITL.
  const SummaryBlock& all = result.summary.overall;
  double ttft_parts = 0, itl_parts = 0;
  for (const auto& g : all.objects) {
    for (const auto& [name, value] : g.fields) (g.name == "ttft_attribution" ? ttft_parts : itl_parts) += value;
  }
  CHECK(ttft_parts == Approx(all.get("mean_ttft_ms")).epsilon(1e-9));
  CHECK(itl_parts == Approx(all.get("mean_itl_ms")).epsilon(1e-9));
}

TEST_CASE("attribution: parts sum exactly under every policy - swap preemption and speculative decoding",
          "[metrics][attribution]") {
  struct Variant {
    const char* scenario;
    std::vector<std::string> sets;
  };
  const std::vector<Variant> variants{
      {"prefix-caching.yaml", {"stop.requests=300", "cluster.pools.0.engine.kv_cache_tokens=24000",
                               "cluster.pools.0.engine.preemption_mode=swap", "cluster.pools.0.engine.swap_space_gb=1"}},
      {"prefix-caching.yaml", {"stop.requests=300", "cluster.pools.0.engine.policy=decode-priority"}},
      {"prefix-caching.yaml", {"stop.requests=300", "cluster.pools.0.engine.policy=static"}},
      {"prefix-caching.yaml", {"stop.requests=300", "cluster.pools.0.engine.policy=continuous"}},
      {"speculative_concurrency.yaml", {"stop.requests=200"}},
  };
  for (const Variant& v : variants) {
    Scenario s = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/scenarios/" + v.scenario, v.sets);
    Simulation sim(s.seed, s.stop, s.workload, s.cluster);
    std::int64_t checked = 0, wrong = 0;
    sim.add_request_sink([&](const RequestRecord& r) {
      if (r.outcome != Outcome::completed) return;
      ++checked;
      if (r.ttft_ns() >= 0 && r.acct.ttft.total() + r.frontend_ns != r.ttft_ns()) ++wrong;
      if (r.output_tokens == 0 && r.acct.ttft.total() + r.frontend_ns != r.e2el_ns()) ++wrong;
      if (r.output_tokens_done >= 2 && r.acct.decode.total() != r.finish_ns - r.first_token_ns) ++wrong;
    });
    const RunResult result = sim.run();
    INFO(v.scenario << " " << v.sets.back());
    CHECK(checked == result.completed);
    CHECK(checked > 100);
    CHECK(wrong == 0);
  }
}

}  // namespace attribution_test
