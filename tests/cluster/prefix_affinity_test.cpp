// The prefix-affinity router: its score on hand-made snapshots, and against a load-only
// router on documents that do not all fit one replica's cache.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/cluster/router.h"
#include "sim/cluster/simulation.h"
#include "sim/scenario/model_loader.h"

namespace prefix_affinity_test {

using namespace servesim;

namespace {

std::unique_ptr<Router> affinity() { return make_router_registry().find("prefix-affinity")->factory(1, "main"); }

ReplicaSnapshot snap(int index, std::int64_t outstanding, std::int64_t cached) {
  ReplicaSnapshot s;
  s.index = index;
  s.outstanding = outstanding;
  s.running = outstanding;
  s.cached_prefix_tokens = cached;
  return s;
}

RequestSpec prompt(std::int64_t tokens) {
  RequestSpec r;
  r.prompt_tokens = tokens;
  return r;
}

}  // namespace

TEST_CASE("prefix-affinity: cached prefix weighs twice the relative load", "[prefix]") {
  auto router = affinity();
  CHECK(router->wants_cached_prefix());
  // Replica 1 holds 900 of 1000 tokens and is the busiest: 2*0.9 + (1 - 3/3) = 1.8 beats
  // the idle replica 0's 0 + 1 = 1.
  std::vector<ReplicaSnapshot> a = {snap(0, 0, 0), snap(1, 3, 900)};
  CHECK(router->route(prompt(1000), a).target == 1);
  // Holding 400 of 1000 (0.8) does not beat an idle replica (1).
  std::vector<ReplicaSnapshot> b = {snap(0, 0, 0), snap(1, 3, 400)};
  CHECK(router->route(prompt(1000), b).target == 0);
  // Equal hits: the load decides; equal everything: the lower index.
  std::vector<ReplicaSnapshot> c = {snap(0, 5, 512), snap(1, 2, 512), snap(2, 2, 512)};
  CHECK(router->route(prompt(1000), c).target == 1);
  // Out of balance (100 - 10 > 64 and 100 > 1.5 * 10): least loaded, whatever is cached.
  std::vector<ReplicaSnapshot> d = {snap(0, 100, 999), snap(1, 10, 0)};
  CHECK(router->route(prompt(1000), d).target == 1);
  // Load-only routers never ask for the prefix lookup.
  CHECK_FALSE(make_router_registry().find("least-outstanding")->factory(1, "main")->wants_cached_prefix());
}

TEST_CASE("prefix-affinity: documents stay where they are cached - unlike round-robin", "[prefix]") {
  // 16 documents of 2000 tokens (Zipf 0.6) plus a 50-token question, over 4 replicas that
  // each cache 12,000 tokens: about 6 documents, so no replica holds them all. Round-robin
  // sends every document everywhere and thrashes; prefix-affinity keeps each where it is.
  auto run = [](const std::string& router) {
    ClassSpec c;
    c.name = "rag";
    c.arrival = ArrivalSpec{};
    c.arrival->process = ArrivalSpec::Process::poisson;
    c.arrival->rate_per_s = 40;
    PromptSegmentSpec docs;
    docs.kind = PromptSegmentSpec::Kind::pool;
    docs.name = "docs";
    docs.count = 16;
    docs.zipf = 0.6;
    docs.tokens.a = 2000;
    PromptSegmentSpec question;
    question.kind = PromptSegmentSpec::Kind::unique;
    question.tokens.a = 50;
    c.prompt = {docs, question};
    c.output = DistSpec{};
    c.output->a = 20;
    PoolConfig p;
    p.replicas = 4;
    p.model = load_model("llama-3-8b");
    p.hardware = load_hardware("h100-sxm");
    p.engine.prefix_cache = true;
    p.engine.kv_cache_tokens = 12'000;
    ClusterConfig cluster;
    cluster.pools.push_back(p);
    cluster.router = router;
    StopSpec stop;
    stop.requests = 2000;
    Simulation sim(5, stop, {c}, cluster);
    return sim.run();
  };
  const RunResult rr = run("round-robin");
  const RunResult pa = run("prefix-affinity");
  REQUIRE(rr.completed == 2000);
  REQUIRE(pa.completed == 2000);
  const double rr_hit = rr.summary.overall.get("prefix_cache_hit_rate");
  const double pa_hit = pa.summary.overall.get("prefix_cache_hit_rate");
  INFO("round-robin hit rate " << rr_hit << ", prefix-affinity " << pa_hit);
  CHECK(pa_hit > rr_hit + 0.2);
  CHECK(pa.summary.overall.get("mean_ttft_ms") < rr.summary.overall.get("mean_ttft_ms"));
}

}  // namespace prefix_affinity_test
