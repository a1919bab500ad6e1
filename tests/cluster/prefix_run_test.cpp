// Whole runs with prefix caching: hit rates that follow from the prompt structure alone,
// computed by hand, and the KV bookkeeping of shared blocks under memory pressure.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/scenario/model_loader.h"

namespace prefix_run_test {

using namespace servesim;

namespace {

DistSpec fixed(double v) {
  DistSpec d;
  d.kind = DistSpec::Kind::fixed;
  d.a = v;
  return d;
}

DistSpec uniform(double lo, double hi) {
  DistSpec d;
  d.kind = DistSpec::Kind::uniform;
  d.a = lo;
  d.b = hi;
  return d;
}

PromptSegmentSpec shared(const std::string& name, double tokens) {
  PromptSegmentSpec s;
  s.kind = PromptSegmentSpec::Kind::shared;
  s.name = name;
  s.tokens = fixed(tokens);
  return s;
}

PromptSegmentSpec unique(DistSpec tokens) {
  PromptSegmentSpec s;
  s.kind = PromptSegmentSpec::Kind::unique;
  s.tokens = tokens;
  return s;
}

// One request per second, exactly: no request ever overlaps another's prefill.
ClassSpec every_second(std::vector<PromptSegmentSpec> prompt, double output) {
  ClassSpec c;
  c.name = "chat";
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::constant;
  c.arrival->rate_per_s = 1;
  c.prompt = std::move(prompt);
  c.output = fixed(output);
  return c;
}

// 1 ms per step plus 10 us per token computed: TTFT of a lone prefill of n tokens is
// 1 + n / 100 ms.
PoolConfig linear_pool(bool prefix_cache, int replicas = 1) {
  PoolConfig p;
  p.name = "main";
  p.replicas = replicas;
  p.model = load_model("llama-3-8b");
  p.hardware = load_hardware("h100-sxm");
  p.engine.prefix_cache = prefix_cache;
  p.engine.block_size = 16;
  p.cost_model.kind = "linear";
  p.cost_model.linear_base_ns = 1'000'000;
  p.cost_model.linear_per_token_ns = 10'000;
  return p;
}

RunResult run(std::vector<ClassSpec> classes, PoolConfig pool, std::int64_t requests, const std::string& router = "round-robin") {
  ClusterConfig cluster;
  cluster.pools.push_back(std::move(pool));
  cluster.router = router;
  StopSpec stop;
  stop.requests = requests;
  Simulation sim(42, stop, std::move(classes), cluster);
  return sim.run();
}

}  // namespace

TEST_CASE("prefix runs: a shared system prompt first is hit by every later request", "[prefix]") {
  // 1000 shared + 50 unique tokens. From the second request on, blocks 0..61 (992 tokens)
  // are system prompt only and cached; block 62 (992-1007) mixes in unique tokens.
  const auto r = run({every_second({shared("system", 1000), unique(fixed(50))}, 10)}, linear_pool(true), 100);
  REQUIRE(r.completed == 100);
  CHECK(r.summary.overall.get("prefix_cache_hit_rate") == Approx(99.0 * 992 / (100.0 * 1050)).epsilon(1e-12));
}

TEST_CASE("prefix runs: a unique segment first (timestamp at the top) destroys every hit", "[prefix]") {
  const auto r = run({every_second({unique(fixed(50)), shared("system", 1000)}, 10)}, linear_pool(true), 100);
  REQUIRE(r.completed == 100);
  CHECK(r.summary.overall.get("prefix_cache_hit_rate") == 0.0);
}

TEST_CASE("prefix runs: caching a shared system prompt lowers mean TTFT as the arithmetic says", "[prefix]") {
  // 2000 shared + 100 unique tokens, alone on the replica each time. Off: every TTFT is
  // 1 + 2100/100 = 22 ms. On: the first 22 ms, the other 99 compute 100 tokens: 2 ms.
  const auto classes = std::vector<ClassSpec>{every_second({shared("system", 2000), unique(fixed(100))}, 5)};
  const auto off = run(classes, linear_pool(false), 100);
  const auto on = run(classes, linear_pool(true), 100);
  CHECK(off.summary.overall.get("mean_ttft_ms") == Approx(22.0).epsilon(1e-9));
  CHECK(on.summary.overall.get("mean_ttft_ms") == Approx((22.0 + 99 * 2.0) / 100).epsilon(1e-9));
  CHECK(off.summary.overall.get("prefix_cache_hit_rate") == 0.0);
  CHECK(on.summary.overall.get("prefix_cache_hit_rate") == Approx(99.0 * 2000 / (100.0 * 2100)).epsilon(1e-12));
}

TEST_CASE("prefix runs: shared blocks are counted once in use and once per holder", "[prefix]") {
  // A cache of 256 blocks, many concurrent requests sharing a 512-token prefix, and prompts
  // long enough to force preemptions: at every step the blocks requests hold must add up
  // to the references the cache counts, no waiting request may hold blocks or progress,
  // and at the end everything is free.
  ClassSpec c;
  c.name = "rag";
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::poisson;
  c.arrival->rate_per_s = 60;
  c.prompt = {shared("system", 512), unique(uniform(100, 1200))};
  c.output = uniform(20, 200);
  PoolConfig pool = linear_pool(true);
  pool.engine.kv_cache_tokens = 256 * 16;
  pool.engine.max_batched_tokens = 1024;
  ClusterConfig cluster;
  cluster.pools.push_back(pool);
  StopSpec stop;
  stop.requests = 300;
  Simulation sim(7, stop, {c}, cluster);
  Replica& replica = *sim.pools()[0]->replicas()[0];
  std::int64_t steps = 0, violations = 0, max_shared = 0;
  replica.add_step_observer([&](int, Tick, const StepPlan&, const StepCost&) {
    ++steps;
    const KvCacheManager& kv = replica.kv();
    std::int64_t held = 0;
    replica.for_each_request([&](RequestState& r) {
      held += r.num_blocks();
      if (r.status == RequestStatus::waiting && (r.num_blocks() != 0 || r.num_computed_tokens != 0)) ++violations;
      if (static_cast<std::int64_t>(r.block_ids().size()) != r.num_blocks()) ++violations;
      if (r.num_blocks() < kv.blocks_for(r.num_computed_tokens)) ++violations;
    });
    if (held != kv.block_refs() || kv.used_blocks() > kv.total_blocks() || kv.used_blocks() > held) ++violations;
    max_shared = std::max(max_shared, held - kv.used_blocks());
  });
  const RunResult r = sim.run();
  CHECK(violations == 0);
  CHECK(steps > 100);
  CHECK(r.preemptions > 0);
  CHECK(max_shared >= 32);  // at least one other request shared the 32 system-prompt blocks
  CHECK(r.completed == 300);
  CHECK(replica.kv().used_blocks() == 0);
  CHECK(replica.kv().block_refs() == 0);
  CHECK(r.summary.overall.get("prefix_cache_hit_rate") > 0.2);
}

TEST_CASE("prefix runs: each turn of a session hits all the previous turn computed - in whole blocks", "[prefix]") {
  // One user, one session of 4 turns: prompt 300, output 50, new input 37. Turn k computed
  // P_k + 50 - 1 tokens (the last output is never fed back), so turn k+1 hits that rounded
  // down to 16-token blocks: P = 300, 387, 474, 561 -> hits 0, 336, 432, 512.
  ClassSpec c;
  c.name = "chat";
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::closed;
  c.arrival->concurrency = 1;
  c.input = fixed(300);
  c.output = fixed(50);
  c.session = SessionSpec{};
  c.session->turns = fixed(4);
  c.session->new_input = fixed(37);
  ClusterConfig cluster;
  cluster.pools.push_back(linear_pool(true));
  StopSpec stop;
  stop.requests = 4;
  Simulation sim(1, stop, {c}, cluster);
  std::vector<RequestRecord> records;
  sim.add_request_sink([&](const RequestRecord& r) { records.push_back(r); });
  const RunResult r = sim.run();
  REQUIRE(r.completed == 4);
  REQUIRE(records.size() == 4);
  const std::vector<std::int64_t> prompts = {300, 387, 474, 561};
  const std::vector<std::int64_t> hits = {0, 336, 432, 512};
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(records[k].session_id == 1);
    CHECK(records[k].turn == static_cast<int>(k + 1));
    CHECK(records[k].prompt_tokens == prompts[k]);
    CHECK(records[k].cached_prompt_tokens == hits[k]);
    CHECK(records[k].cached_prompt_tokens == (prompts[k > 0 ? k - 1 : 0] + 50 - 1) / 16 * 16 * (k > 0 ? 1 : 0));
  }
  // Each turn's TTFT is one prefill step of what was not cached: 1 ms + 10 us per token.
  CHECK(records[1].ttft_ns() == 1'000'000 + 10'000 * (387 - 336));
}

TEST_CASE("prefix runs: a Mooncake trace hits what its hash ids share", "[prefix]") {
  // Ids of 512-token blocks. Row 2 shares id 0 with row 1 (512 tokens, 32 blocks of 16);
  // row 3 repeats row 1's ids over 1000 tokens: id 0 whole, then 30 whole blocks of id 1's
  // first 488 tokens, which row 1 computed: 992 tokens, exactly the cap (1000-1)/16 blocks.
  // The pid keeps concurrent suites (other build folders, other checkouts) apart.
  const std::string path =
      std::filesystem::temp_directory_path() / ("servesim_prefix_run_mc_" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream(path) << "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 3, \"hash_ids\": [0, 1]}\n"
                         "{\"timestamp\": 1000, \"input_length\": 1024, \"output_length\": 3, \"hash_ids\": [0, 2]}\n"
                         "{\"timestamp\": 2000, \"input_length\": 1000, \"output_length\": 3, \"hash_ids\": [0, 1]}\n";
  ClassSpec c;
  c.name = "kimi";
  c.trace = TraceSpec{};  // fields by name: the spec grows
  c.trace->format = "mooncake";
  c.trace->path = path;
  c.trace->speedup = 1.0;
  ClusterConfig cluster;
  cluster.pools.push_back(linear_pool(true));
  StopSpec stop;
  Simulation sim(1, stop, {c}, cluster);
  std::vector<std::int64_t> cached;
  sim.add_request_sink([&](const RequestRecord& r) { cached.push_back(r.cached_prompt_tokens); });
  const RunResult r = sim.run();
  std::filesystem::remove(path);
  REQUIRE(r.completed == 3);
  CHECK(cached == std::vector<std::int64_t>{0, 512, 992});
  CHECK(r.summary.overall.get("prefix_cache_hit_rate") == Approx(1504.0 / 3048.0).epsilon(1e-12));
}

}  // namespace prefix_run_test
