// Prefix caching in one replica (vLLM APC semantics), traced by hand: which blocks are hits,
// which are evicted first, and what each step then computes.
#include <catch2/catch.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/block_pool.h"
#include "sim/engine/kv_cache_manager.h"
#include "sim/engine/replica.h"
#include "sim/metrics/replica_metrics.h"

namespace prefix_cache_test {

using namespace servesim;

namespace {

// 1 us per step plus 10 ns per token computed.
class AffineCost final : public CostModel {
 public:
  StepCost step_cost(const BatchShape& b) const override {
    StepCost c;
    c.total_ns = 1000 + 10 * b.total_tokens();
    return c;
  }
  std::string describe() const override { return "affine test model"; }
};

struct NoListener : ReplicaListener {
  void on_request_done(RequestState&, Tick) override {}
};

// One replica with prefix caching; steps recorded as "id:tokens".
struct PrefixHarness {
  Simulator sim;
  MetricsRecorder metrics{{"default"}, {"main"}};
  ReplicaMetrics measured{metrics, 0};  // the metrics' subscription to the replica
  NoListener listener;
  EngineConfig config;
  std::unique_ptr<Replica> replica;
  std::vector<std::string> steps;
  std::vector<std::unique_ptr<RequestState>> states;

  PrefixHarness(std::int64_t budget, std::int64_t kv_blocks, int block_size, bool prefix_cache = true) {
    config.policy = "chunked-prefill";
    config.max_batched_tokens = budget;
    config.max_num_seqs = 8;
    config.block_size = block_size;
    config.prefix_cache = prefix_cache;
    auto reg = make_policy_registry();
    replica = std::make_unique<Replica>(sim, 0, 0, config, kv_blocks, reg.find("chunked-prefill")->factory(),
                                        std::make_shared<AffineCost>(), measured, listener, 0);
    replica->add_step_observer([this](int, Tick, const StepPlan& plan, const StepCost&) {
      std::string s;
      for (const auto& c : plan.chunks)
        s += (s.empty() ? "" : " ") + std::to_string(c.request->spec.id) + ":" + std::to_string(c.num_tokens);
      steps.push_back(s);
    });
  }
  RequestState& make(std::uint64_t id, std::int64_t prompt, std::int64_t output, std::vector<std::uint64_t> hashes) {
    states.push_back(std::make_unique<RequestState>());
    RequestState& r = *states.back();
    r.spec.id = id;
    r.spec.prompt_tokens = prompt;
    r.spec.output_tokens = output;
    r.spec.block_hashes = std::move(hashes);
    return r;
  }
  RequestState& submit(std::uint64_t id, std::int64_t prompt, std::int64_t output, std::vector<std::uint64_t> hashes) {
    RequestState& r = make(id, prompt, output, std::move(hashes));
    r.spec.arrival_ns = sim.now();
    replica->submit(r);
    return r;
  }
  // Submits at simulated time `at_ns` (after everything before it has run).
  RequestState& submit_at(Tick at_ns, std::uint64_t id, std::int64_t prompt, std::int64_t output,
                          std::vector<std::uint64_t> hashes) {
    RequestState& r = make(id, prompt, output, std::move(hashes));
    sim.schedule_at(at_ns, [this, &r] {
      r.spec.arrival_ns = sim.now();
      replica->submit(r);
    });
    return r;
  }
};

}  // namespace

TEST_CASE("block pool: freeing a request queues its tail block for eviction first", "[prefix]") {
  BlockPool pool(4);
  const std::int32_t a = pool.allocate(), b = pool.allocate(), c = pool.allocate();
  CHECK((a == 0 && b == 1 && c == 2));
  CHECK(pool.cache(a, 100));
  CHECK(pool.cache(b, 101));
  CHECK_FALSE(pool.cache(c, 100));  // that content is cached already, in block a
  CHECK(pool.num_free() == 1);
  // Freed as a request frees: last block first.
  pool.release(c);
  pool.release(b);
  pool.release(a);
  CHECK(pool.num_free() == 4);
  CHECK(pool.find_cached(101) == b);  // free but still a hit
  // A hit takes a block out of the middle of the free queue.
  pool.touch(b);
  CHECK(pool.num_free() == 3);
  CHECK(pool.ref_count(b) == 1);
  // Eviction order is the free order: the never-used block 3 and c, then a. 3 and c hold
  // no hash, so either may be handed out first (the pool takes the one freed last: c).
  const std::int32_t first = pool.allocate(), second = pool.allocate();
  CHECK(std::minmax(first, second) == std::minmax(c, 3));
  CHECK(pool.evictions() == 0);  // neither held a hash
  CHECK(pool.allocate() == a);
  CHECK(pool.evictions() == 1);
  CHECK(pool.find_cached(100) == -1);
  CHECK(pool.find_cached(101) == b);
}

TEST_CASE("prefix cache: a hit is capped so at least one prompt token is computed", "[prefix]") {
  KvCacheManager kv(/*blocks=*/10, /*block=*/4, /*prefix_cache=*/true);
  RequestState first;
  first.spec.id = 1;
  first.spec.prompt_tokens = 12;
  first.spec.block_hashes = {7, 8, 9};
  CHECK(kv.match_prefix(first) == 0);
  REQUIRE(kv.allocate(first, 12));
  first.num_computed_tokens = 12;
  kv.cache_computed_blocks(first, 0);
  CHECK(kv.cached_blocks() == 3);
  kv.free(first);

  // The same 12 tokens: 3 cached blocks, but only (12 - 1) / 4 = 2 may be hits.
  RequestState same;
  same.spec = first.spec;
  same.spec.id = 2;
  CHECK(kv.cached_prefix_tokens(same.spec) == 8);
  CHECK(kv.match_prefix(same) == 8);
  CHECK(same.num_computed_tokens == 8);
  CHECK(same.cached_prompt_tokens == 8);
  CHECK(same.remaining() == 4);
  CHECK(kv.used_blocks() == 2);
  // Not admitted (still waiting): the pass's end undoes the match.
  kv.drop_unadmitted_matches();
  CHECK(same.num_blocks() == 0);
  CHECK(same.num_computed_tokens == 0);
  CHECK(same.cached_prompt_tokens == 0);
  CHECK(kv.used_blocks() == 0);
  CHECK(kv.cached_blocks() == 3);  // still cached

  // A chain that differs in its first block shares nothing, even with equal later hashes.
  RequestState other;
  other.spec.id = 3;
  other.spec.prompt_tokens = 12;
  other.spec.block_hashes = {6, 8, 9};
  CHECK(kv.match_prefix(other) == 0);
}

TEST_CASE("prefix cache: a later request with the same prefix computes only the rest", "[prefix]") {
  PrefixHarness h(/*budget=*/64, /*kv_blocks=*/100, /*block=*/4);
  // A: 10 tokens, blocks 0-3 and 4-7 full (hashes 11, 12), 8-9 partial.
  RequestState& a = h.submit(1, 10, 2, {11, 12});
  RequestState& b = h.submit_at(5000, 2, 10, 2, {11, 12});  // same 10-token prompt: 8 hit
  RequestState& c = h.submit_at(10000, 3, 8, 1, {11, 12});  // 8 tokens: cap (8-1)/4 = 1 block
  RequestState& d = h.submit_at(15000, 4, 10, 1, {99, 12}); // differs in block 0: no hit
  h.sim.run();
  CHECK(h.steps == std::vector<std::string>{"1:10", "1:1", "2:2", "2:1", "3:4", "4:10"});
  CHECK(a.cached_prompt_tokens == 0);
  CHECK(b.cached_prompt_tokens == 8);
  CHECK(c.cached_prompt_tokens == 4);
  CHECK(d.cached_prompt_tokens == 0);
  // B's TTFT is one step of 2 tokens: 1000 + 10 * 2 ns.
  CHECK(b.first_token_ns - b.spec.arrival_ns == 1020);
  CHECK(h.replica->kv().used_blocks() == 0);
  CHECK(h.replica->kv().block_refs() == 0);
  CHECK(h.metrics.summarize(1).overall.get("prefix_cache_hit_rate") == Approx((8.0 + 4.0) / (10 + 10 + 8 + 10)));
}

TEST_CASE("prefix cache: blocks being computed in a step are not hits in that step", "[prefix]") {
  PrefixHarness h(/*budget=*/64, /*kv_blocks=*/100, /*block=*/4);
  h.submit(9, 4, 1, {});  // runs alone in step 1 while A and B queue behind it
  RequestState& a = h.submit(1, 8, 1, {21, 22});
  RequestState& b = h.submit(2, 8, 1, {21, 22});
  RequestState& c = h.submit_at(10000, 3, 8, 1, {21, 22});
  h.sim.run();
  CHECK(h.steps == std::vector<std::string>{"9:4", "1:8 2:8", "3:4"});
  CHECK(a.cached_prompt_tokens == 0);
  CHECK(b.cached_prompt_tokens == 0);  // A computed the same blocks in the same step
  CHECK(c.cached_prompt_tokens == 4);
}

TEST_CASE("prefix cache: eviction takes the least recently freed block - a chain's tail first", "[prefix]") {
  // 4 blocks of 4 tokens. Free queue at the start: 0 1 2 3.
  PrefixHarness h(/*budget=*/64, /*kv_blocks=*/4, /*block=*/4);
  // A takes blocks 0,1 (hashes 1,2) and frees them last block first: queue 2 3 1 0.
  RequestState& a = h.submit(1, 8, 1, {1, 2});
  // E needs 3 blocks: takes 2, 3 and 1 (evicting A's tail block, hash 2); queue 0, then
  // E's blocks freed last first: 0 1 3 2.
  RequestState& e = h.submit_at(5000, 2, 12, 1, {7, 8, 9});
  // F = A's prompt: hits block 0 (hash 1; cap 1 block anyway), takes the head block 1
  // (evicting E's tail, hash 9) for its second block; freed: queue 3 2 1 0.
  RequestState& f = h.submit_at(10000, 3, 8, 1, {1, 2});
  // G = E's prompt: hashes 7, 8 are still cached in blocks 2, 3: 8 tokens hit (cap 2
  // blocks); its third block is the head of the queue, block 1 (F's hash 2, evicted).
  RequestState& g = h.submit_at(15000, 4, 12, 1, {7, 8, 9});
  h.sim.run();
  CHECK(h.steps == std::vector<std::string>{"1:8", "2:12", "3:4", "4:4"});
  CHECK(a.cached_prompt_tokens == 0);
  CHECK(e.cached_prompt_tokens == 0);
  CHECK(f.cached_prompt_tokens == 4);
  CHECK(g.cached_prompt_tokens == 8);
  CHECK(h.replica->kv().evictions() == 3);  // hash 2, hash 9, then hash 2 again (G's third block)
  CHECK(h.replica->kv().used_blocks() == 0);
}

TEST_CASE("prefix cache: a preempted request recomputes only what was evicted of its own blocks", "[prefix]") {
  // The preemption scenario of replica_test.cpp with prefix caching on. Traced by hand:
  // B (blocks 3,4,5) is preempted in step 6 with 11 tokens computed, of which blocks 3 and 4
  // (tokens 0-7) were registered. While A runs on, B's re-admission matches them but cannot
  // get its third block (steps 7 and 8) and lets them go again; once A finishes, B hits 8
  // tokens and recomputes prompt + 4 outputs - 8 = 4 tokens, not 12.
  PrefixHarness h(/*budget=*/32, /*kv_blocks=*/6, /*block=*/4);
  RequestState& a = h.submit(1, 8, 8, {});
  RequestState& b = h.submit(2, 8, 8, {});
  h.sim.run();
  CHECK(h.steps == std::vector<std::string>{"1:8", "1:1 2:8", "1:1 2:1", "1:1 2:1", "1:1 2:1", "1:1", "1:1", "1:1",
                                            "2:4", "2:1", "2:1", "2:1"});
  CHECK(a.preemptions == 0);
  CHECK(b.preemptions == 1);
  CHECK(b.cached_prompt_tokens == 0);  // its first admission had no hit
  CHECK(h.metrics.completed() == 2);
  // B's fourth block (tokens 12-15) took the head of the free queue, A's block 2, which
  // holds no hash: A was never preempted, so its private hashes were never registered
  // (only A could have looked them up). B's three full blocks are cached: 0 and 1
  // registered at its preemption, 2 after its return.
  CHECK(h.replica->kv().evictions() == 0);
  CHECK(h.replica->kv().cached_blocks() == 3);
  CHECK(h.replica->kv().used_blocks() == 0);
}

TEST_CASE("prefix cache off: the same requests share nothing", "[prefix]") {
  PrefixHarness h(/*budget=*/64, /*kv_blocks=*/100, /*block=*/4, /*prefix_cache=*/false);
  h.submit(1, 10, 2, {11, 12});
  RequestState& b = h.submit_at(5000, 2, 10, 2, {11, 12});
  h.sim.run();
  CHECK(h.steps == std::vector<std::string>{"1:10", "1:1", "2:10", "2:1"});
  CHECK(b.cached_prompt_tokens == 0);
}

TEST_CASE("prefix cache: private hashes are found through their request and only while cached", "[prefix]") {
  // A request without source hashes: all 3 full blocks get hashes private to it, which the
  // pool keeps out of its index (block_pool.h) and the request remembers.
  KvCacheManager kv(/*blocks=*/4, /*block=*/4, /*prefix_cache=*/true);
  RequestState r;
  r.spec.id = 1;
  r.spec.prompt_tokens = 13;
  CHECK(kv.match_prefix(r) == 0);
  REQUIRE(kv.allocate(r, 13));
  r.num_computed_tokens = 13;
  kv.cache_computed_blocks(r, 0);
  // Registered only if it frees its blocks unfinished: until then nobody could look them up.
  CHECK(kv.cached_blocks() == 0);
  const std::vector<std::int32_t> first_blocks = r.block_ids();
  kv.free(r);  // preempted: recompute from what is still cached
  CHECK(kv.cached_blocks() == 3);
  r.num_computed_tokens = 0;

  // Another request with the same length and no hashes shares nothing.
  RequestState other;
  other.spec.id = 2;
  other.spec.prompt_tokens = 13;
  CHECK(kv.match_prefix(other) == 0);
  kv.drop_unadmitted_matches();

  // Its own re-admission hits all three (12 of 13 tokens: the cap leaves one to compute).
  CHECK(kv.match_prefix(r) == 12);
  CHECK(r.block_ids() == std::vector<std::int32_t>(first_blocks.begin(), first_blocks.begin() + 3));
  kv.free(r);
  r.num_computed_tokens = 0;

  // The free queue holds the request's partial fourth block (no hash) first, then its
  // blocks tail first (kv.free releases the last block first): two allocations evict
  // block 2's hash only.
  RequestState filler;
  filler.spec.id = 3;
  filler.spec.prompt_tokens = 8;
  REQUIRE(kv.allocate(filler, 8));
  CHECK(kv.evictions() == 1);
  CHECK(kv.cached_blocks() == 2);
  CHECK(kv.match_prefix(r) == 8);  // blocks 0 and 1 only
  kv.free(r);
  kv.free(filler);
}

TEST_CASE("prefix cache: a private hash recomputed past the hit cap keeps its first block", "[prefix]") {
  // 8 tokens: blocks 0 and 1 are full and registered, but a re-admission may hit only
  // (8 - 1) / 4 = 1 block, so block 1 is computed again into a new block. Its hash stays
  // with the first block (a hash names one block; tables are append-only), as with source
  // hashes, and a later re-admission still finds the first one.
  KvCacheManager kv(/*blocks=*/8, /*block=*/4, /*prefix_cache=*/true);
  RequestState r;
  r.spec.id = 5;
  r.spec.prompt_tokens = 8;
  REQUIRE(kv.allocate(r, 8));
  r.num_computed_tokens = 8;
  kv.cache_computed_blocks(r, 0);
  const std::int32_t first_block1 = r.block_ids()[1];
  kv.free(r);
  r.num_computed_tokens = 0;
  CHECK(kv.match_prefix(r) == 4);
  REQUIRE(kv.allocate(r, 4));
  r.num_computed_tokens = 8;
  kv.cache_computed_blocks(r, 4);
  CHECK(r.block_ids()[1] != first_block1);
  CHECK(kv.cached_blocks() == 2);  // the new block 1 was not registered
  kv.free(r);
  r.num_computed_tokens = 0;
  r.spec.prompt_tokens = 12;  // as if an output had been added: now two blocks may hit
  CHECK(kv.match_prefix(r) == 8);
  CHECK(r.block_ids()[1] == first_block1);
  kv.free(r);
}

TEST_CASE("prefix cache: private hashes are registered only when a request leaves unfinished", "[prefix]") {
  // Only a request itself can look up its private hashes, after it frees its blocks
  // unfinished (a preemption), and a block it holds cannot be evicted: its private hashes
  // and the table of their blocks are written then, not for every prompt. A finished
  // request never registers them.
  KvCacheManager kv(/*blocks=*/16, /*block=*/4, /*prefix_cache=*/true);
  RequestState done;
  done.spec.id = 1;
  done.spec.prompt_tokens = 13;
  REQUIRE(kv.allocate(done, 13));
  done.num_computed_tokens = 13;
  kv.cache_computed_blocks(done, 0);
  CHECK(done.private_blocks().empty());
  CHECK(kv.cached_blocks() == 0);  // deferred: only its own return could look them up
  done.status = RequestStatus::finished;
  kv.free(done);
  CHECK(done.private_blocks().empty());
  CHECK(kv.cached_blocks() == 0);  // it will not return

  RequestState preempted;
  preempted.spec.id = 2;
  preempted.spec.prompt_tokens = 13;
  preempted.status = RequestStatus::running;
  REQUIRE(kv.allocate(preempted, 13));
  preempted.num_computed_tokens = 13;
  kv.cache_computed_blocks(preempted, 0);
  const std::vector<std::int32_t> blocks(preempted.block_ids().begin(), preempted.block_ids().begin() + 3);
  kv.free(preempted);
  CHECK(preempted.private_blocks() == blocks);
  CHECK(kv.cached_blocks() == 3);
  preempted.num_computed_tokens = 0;
  CHECK(kv.match_prefix(preempted) == 12);
  CHECK(preempted.block_ids() == blocks);
}

}  // namespace prefix_cache_test
