// Every policy of docs/engine.md under the InvariantChecker (docs/INVARIANTS.md): two
// classes of different priority, prompts up to 3000 tokens, and a KV cache small enough to
// preempt. Swap and speculation are left out: they keep progress across a preemption and
// emit several tokens per step, which INV-2 and INV-4 (as written) do not allow.
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "sim/cluster/invariant_checker.h"
#include "sim/scenario/model_loader.h"

namespace policy_invariants_test {

using namespace servesim;


namespace {

ClassSpec poisson_class(std::string name, double rate, double median_in, double max_in, int priority) {
  ClassSpec c;
  c.name = std::move(name);
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::poisson;
  c.arrival->rate_per_s = rate;
  DistSpec in;
  in.kind = DistSpec::Kind::lognormal;
  in.a = median_in;
  in.b = 0.6;
  in.max = max_in;
  c.input = in;
  DistSpec out;
  out.kind = DistSpec::Kind::uniform;
  out.a = 1;
  out.b = 200;
  c.output = out;
  c.priority = priority;
  return c;
}

}  // namespace

TEST_CASE("policy invariants: every policy keeps every invariant under KV pressure and priorities",
          "[policy]") {
  struct Case {
    const char* policy;
    std::function<void(EngineConfig&)> knobs;
    bool may_preempt;  // false: the policy reserves whole sequences
  };
  const std::vector<Case> cases = {
      {"static", {}, false},
      {"decode-priority", [](EngineConfig& e) { e.decode_target_batch = 8; }, true},
      {"priority", [](EngineConfig& e) { e.preempt_lower_priority = true; }, true},
      {"inflight", {}, true},
      {"prefill-first", [](EngineConfig& e) { e.prefill_chunk_tokens = 512; }, true},
      {"chunked-prefill", [](EngineConfig& e) {
         e.watermark = 0.05;
         e.overheads.per_step_ns = 1 * kNsPerMs;
         e.overheads.per_request_ns = 2 * kNsPerMs;
         e.overheads.per_token_ns = 10 * kNsPerUs;
       }, true},
      {"chunked-prefill", [](EngineConfig& e) { e.kv_admission = KvAdmission::reserve_full; }, false},
  };
  for (const Case& c : cases) {
    PoolConfig p;
    p.model = load_model("llama-3-8b");
    p.hardware = load_hardware("h100-sxm");
    p.engine.policy = c.policy;
    p.engine.max_num_seqs = 32;
    p.engine.max_batched_tokens = 4096;
    p.engine.kv_cache_tokens = 8192;  // 512 blocks: a handful of long requests fill it
    if (c.knobs) c.knobs(p.engine);
    ClusterConfig cluster;
    cluster.pools.push_back(p);
    StopSpec stop;
    stop.requests = 300;
    Simulation sim(5, stop, {poisson_class("batch", 6, 1500, 3000, 0), poisson_class("chat", 6, 300, 1000, 2)},
                   cluster);
    InvariantChecker checker(sim);
    const RunResult r = sim.run();
    checker.check_end(r);
    INFO(c.policy << ": " << checker.report());
    CHECK(checker.violations().empty());
    CHECK(r.completed + r.rejected == 300);
    CHECK(r.completed > 250);
    INFO("preemptions " << r.preemptions);
    if (c.may_preempt) {
      CHECK(r.preemptions > 0);  // the cache really was short
    } else {
      CHECK(r.preemptions == 0);
    }
  }
}

}  // namespace policy_invariants_test
