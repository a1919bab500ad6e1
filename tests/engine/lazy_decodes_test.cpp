// Lazy decodes (sim/engine/lazy_decodes.h) and decode runs (sim/engine/decode_run.cpp)
// must not change a single figure: every scenario
// and a set of variants chosen to cross every path (each policy, prefix caching with shared
// prefixes, sessions whose hashes run over their outputs, preemption by recompute and by
// swap, priority preemption, disaggregation, closed loops, a time limit with requests in
// flight, engine overheads, a block size of 8) run three times: as they
// are (decode runs and lazy decodes), with every step its own event, and with a no-op step
// observer on every replica, which makes the replica visit every decode of every step.
// Summary JSON and every request record (attribution and GPU-time units included) must be
// identical, and the first runs must really have kept decodes lazy.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/metrics/replica_metrics.h"
#include "sim/report/summary_writer.h"
#include "sim/scenario/scenario_loader.h"
#include "engine/policy_harness.h"

namespace lazy_decodes_test {

using namespace servesim;

namespace {

std::string record_text(const RequestRecord& r) {
  std::ostringstream o;
  const RequestAccounting& a = r.acct;
  o << r.id << ' ' << r.class_index << ' ' << r.pool_index << ' ' << r.replica_index << ' '
    << static_cast<int>(r.outcome) << ' ' << r.reject_reason << ' ' << r.arrival_ns << ' ' << r.first_scheduled_ns
    << ' ' << r.first_token_ns << ' ' << r.finish_ns << ' ' << r.prompt_tokens << ' ' << r.output_tokens << ' '
    << r.output_tokens_done << ' ' << r.cached_prompt_tokens << ' ' << r.preemptions << ' ' << r.preempted_ns << ' '
    << r.truncated_tokens << ' ' << r.kv_transfer_ns << ' ' << r.session_id << ' ' << r.turn << " | " << a.mark_ns
    << ' ' << a.max_itl_ns << ' ' << a.ttft.queue_ns << ' ' << a.ttft.prefill_compute_ns << ' '
    << a.ttft.batch_share_ns << ' ' << a.ttft.stall_ns << ' ' << a.ttft.preemption_ns << ' ' << a.ttft.overhead_ns
    << ' ' << a.decode.decode_compute_ns << ' ' << a.decode.prefill_interference_ns << ' ' << a.decode.stall_ns
    << ' ' << a.decode.preemption_ns << ' ' << a.decode.overhead_ns << ' ' << a.gpu.prefill_units << ' '
    << a.gpu.cached_units << ' ' << a.gpu.decode_units << ' ' << a.prefill_saved_ns << '\n';
  return o.str();
}

struct Outcome {
  std::string summary;
  std::string records;
  std::int64_t steps = 0;
  std::int64_t lazy_tokens = 0;
  std::int64_t run_steps = 0;
  std::int64_t preemptions = 0;
};

// How the replicas step: decode runs and lazy decodes (the default), lazy decodes with
// every step its own event, or every decode visited in every step.
enum class Mode { runs, lazy_only, visited };

Outcome run(const std::string& scenario, const std::vector<std::string>& sets, Mode mode) {
  const Scenario s = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/" + scenario, sets);
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  Outcome out;
  sim.add_request_sink([&](const RequestRecord& r) { out.records += record_text(r); });
  for (auto& pool : sim.pools())
    for (auto& replica : pool->replicas()) {
      if (mode == Mode::visited) replica->add_step_observer([](int, Tick, const StepPlan&, const StepCost&) {});
      if (mode == Mode::lazy_only) replica->keep_no_decode_runs();
    }
  const RunResult r = sim.run();
  std::ostringstream json;
  write_summary_json(r.summary, json);
  out.summary = json.str();
  out.steps = r.steps;
  out.preemptions = r.preemptions;
  for (auto& pool : sim.pools())
    for (auto& replica : pool->replicas()) {
      out.lazy_tokens += replica->stats().lazy_decode_tokens;
      out.run_steps += replica->stats().decode_run_steps;
    }
  return out;
}

struct Case {
  const char* name;
  const char* scenario;
  std::vector<std::string> sets;
  bool lazy_expected = true;  // policies and set-ups that keep decodes lazy
};

void check_same(const Case& c) {
  INFO(c.name);
  const Outcome visited = run(c.scenario, c.sets, Mode::visited);
  CHECK(visited.lazy_tokens == 0);
  CHECK(visited.run_steps == 0);
  for (const Mode mode : {Mode::runs, Mode::lazy_only}) {
    INFO((mode == Mode::runs ? "decode runs" : "lazy decodes, every step an event"));
    const Outcome lazy = run(c.scenario, c.sets, mode);
    if (c.lazy_expected) {
      CHECK(lazy.lazy_tokens > 0);
    } else {
      CHECK(lazy.lazy_tokens == 0);
    }
    if (mode == Mode::lazy_only || !c.lazy_expected) CHECK(lazy.run_steps == 0);
    if (mode == Mode::runs && c.lazy_expected) CHECK(lazy.run_steps > 0);
    CHECK(lazy.steps == visited.steps);
    CHECK(lazy.preemptions == visited.preemptions);
    CHECK(lazy.summary == visited.summary);
    REQUIRE(lazy.records.size() == visited.records.size());
    CHECK(lazy.records == visited.records);
  }
}

const char* const kQuickstart = "scenarios/quickstart.yaml";
const char* const kPrefix = "scenarios/prefix-caching.yaml";
const char* const kBench = "bench/throughput.yaml";

}  // namespace

TEST_CASE("lazy decodes: every scenario gives the same figures as visiting every decode", "[engine][lazy]") {
  const std::vector<Case> cases = {
      {"quickstart", kQuickstart, {"stop.requests=400"}},
      {"prefix-caching", kPrefix, {"stop.requests=600"}},
      {"disaggregated", "scenarios/disaggregated.yaml", {"stop.requests=300"}},
      {"sarathi_long_prompts", "scenarios/sarathi_long_prompts.yaml", {"stop.requests=200"}},
      // Speculation visits every decode (its verify chunks are priced one by one).
      {"speculative_concurrency", "scenarios/speculative_concurrency.yaml", {"stop.requests=64"}, false},
      {"whatif-01", "scenarios/whatif-01-document-assistant.yaml", {"stop.requests=200"}},
      {"whatif-02", "scenarios/whatif-02-wrong-phase.yaml", {"stop.requests=300"}},
      {"whatif-03", "scenarios/whatif-03-timestamp-prefix.yaml", {"stop.requests=300"}},
      {"whatif-04", "scenarios/whatif-04-batch-size.yaml", {"stop.requests=300"}},
      {"whatif-05", "scenarios/whatif-05-agent-loop.yaml", {"stop.requests=300"}},
      {"whatif-06", "scenarios/whatif-06-output-limit.yaml", {"stop.requests=300"}},
      {"whatif-07 (time limit, two classes)", "scenarios/whatif-07-interactive-batch.yaml", {"stop.time=60s"}},
      {"whatif-11", "scenarios/whatif-11-short-calls.yaml", {"stop.requests=300"}},
      {"whatif-12", "scenarios/whatif-12-pricing.yaml", {"stop.requests=300"}},
      {"whatif-13", "scenarios/whatif-13-retrieval.yaml", {"stop.requests=200"}},
  };
  for (const Case& c : cases) check_same(c);
}

TEST_CASE("lazy decodes: every policy with and without memory pressure gives the same figures", "[engine][lazy]") {
  const char* const policies[] = {"chunked-prefill", "continuous", "static", "decode-priority",
                                  "priority",        "inflight",   "prefill-first"};
  for (const char* policy : policies) {
    const bool lazy = std::string(policy) != "prefill-first";  // its prefill steps leave decodes out
    const std::string p = std::string("cluster.pools.0.engine.policy=") + policy;
    check_same({policy, kBench, {"stop.requests=1500", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=30", p}, lazy});
    // KV for a few requests only: preemptions (recompute) in the middle of lazy runs.
    check_same({policy, kBench,
                {"stop.requests=600", "cluster.pools.0.replicas=1", "workload.0.arrival.rate=40",
                 "cluster.pools.0.engine.kv_cache_tokens=24000", p},
                lazy});
  }
}

TEST_CASE("lazy decodes: preemption - swap - prefix hits and engine knobs give the same figures", "[engine][lazy]") {
  const std::vector<Case> cases = {
      // Shared prefixes, sessions (hashes over outputs), recompute after preemption with
      // private-block tables, and the swap path.
      {"prefix 20k", kPrefix, {"stop.requests=800", "cluster.pools.0.engine.kv_cache_tokens=20000"}},
      {"prefix 30k swap", kPrefix,
       {"stop.requests=800", "cluster.pools.0.engine.kv_cache_tokens=30000", "cluster.pools.0.engine.preemption_mode=swap"}},
      {"prefix least-outstanding", kPrefix,
       {"stop.requests=800", "cluster.pools.0.engine.kv_cache_tokens=25000", "cluster.router=least-outstanding"}},
      {"agent loop, prefix 12k", "scenarios/whatif-05-agent-loop.yaml",
       {"stop.requests=300", "cluster.pools.0.engine.kv_cache_tokens=12000"}},
      {"bench 2 replicas 30k", kBench,
       {"stop.requests=3000", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=300",
        "cluster.pools.0.engine.kv_cache_tokens=30000"}},
      {"bench no prefix cache, tight", kBench,
       {"stop.requests=2000", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=300",
        "cluster.pools.0.engine.kv_cache_tokens=30000", "cluster.pools.0.engine.prefix_cache=false"}},
      // Priority preemption of running (lazy) requests by a waiting higher-priority one.
      {"priority preempting", "scenarios/whatif-07-interactive-batch.yaml",
       {"stop.time=60s", "cluster.pools.0.engine.policy=priority", "cluster.pools.0.engine.preempt_lower_priority=true",
        "cluster.pools.0.engine.max_num_seqs=24"}},
      {"chunk cap", kBench,
       {"stop.requests=1500", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=40",
        "cluster.pools.0.engine.prefill_chunk_tokens=256", "cluster.pools.0.engine.max_batched_tokens=512"}},
      {"small budget", kBench,
       {"stop.requests=800", "cluster.pools.0.replicas=1", "workload.0.arrival.rate=30",
        "cluster.pools.0.engine.max_batched_tokens=64", "cluster.pools.0.engine.max_num_seqs=200",
        "workload.0.input={fixed: 40}"}},
      {"overheads", kBench,
       {"stop.requests=1000", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=30",
        "cluster.pools.0.engine.overheads={per_step: 200us, per_request: 1ms, per_token: 20us}"}},
      {"block size 8", kBench,
       {"stop.requests=1000", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=30",
        "cluster.pools.0.engine.block_size=8", "cluster.pools.0.engine.prefix_cache=false"}},
      // Wheels of more than 64 slots (no occupancy bits) and of one slot (a mask of 0).
      {"block size 128, tight", kBench,
       {"stop.requests=1500", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=60",
        "cluster.pools.0.engine.block_size=128", "cluster.pools.0.engine.kv_cache_tokens=40000"}},
      {"block size 1", kBench,
       {"stop.requests=300", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=30",
        "cluster.pools.0.engine.block_size=1"}},
      {"reserve_full, watermark", kBench,
       {"stop.requests=1000", "cluster.pools.0.replicas=1", "workload.0.arrival.rate=20",
        "cluster.pools.0.engine.kv_admission=reserve-full", "cluster.pools.0.engine.watermark=0.05"}},
      // Admission by what the running requests will still grow into, read from lazy
      // decodes whose blocks are not yet in their tables (LazyDecodes::held_blocks).
      {"reserve_full, tight", kBench,
       {"stop.requests=600", "cluster.pools.0.replicas=1", "workload.0.arrival.rate=40",
        "cluster.pools.0.engine.kv_admission=reserve-full", "cluster.pools.0.engine.kv_cache_tokens=24000"}},
      {"closed loop, speculation off", "scenarios/speculative_concurrency.yaml",
       {"stop.requests=200", "cluster.pools.0.engine.speculative=off", "workload.0.arrival.concurrency=24"}},
      {"time limit mid-run", kBench,
       {"stop.requests=100000", "stop.time=20s", "cluster.pools.0.replicas=2", "workload.0.arrival.rate=40"}},
      // Exact-nanosecond ties: constant 10 ms steps on two replicas (their step ends fall
      // on the same nanoseconds) and arrivals every 100 ms (on step ends); then a closed
      // loop without think time, whose next request arrives at the very end of the step
      // that finished the last, and goes to another replica.
      {"ties: constant steps and arrivals", kBench,
       {"stop.requests=600", "cluster.pools.0.replicas=2", "workload.0.arrival={process: constant, rate: 10}",
        "cluster.pools.0.cost_model={constant: {step: 10ms}}"}},
      {"ties: closed loop without think time", kBench,
       {"stop.requests=400", "cluster.pools.0.replicas=3", "workload.0.arrival={process: closed, concurrency: 7}",
        "cluster.pools.0.cost_model={linear: {base: 5ms, per_token: 0.01ms}}"}},
      {"ties: least-kv router on constant steps", kBench,
       {"stop.requests=600", "cluster.pools.0.replicas=3", "workload.0.arrival={process: constant, rate: 25}",
        "cluster.pools.0.cost_model={constant: {step: 10ms}}", "cluster.router=least-kv"}},
      {"disaggregated, prefix, small decode pool", "scenarios/disaggregated.yaml",
       {"stop.requests=400", "cluster.pools.0.engine.prefix_cache=true", "cluster.pools.1.engine.prefix_cache=true",
        "cluster.pools.1.engine.kv_cache_tokens=60000", "workload.0.arrival.rate=16"}},
  };
  for (const Case& c : cases) check_same(c);
}

namespace {

// Two replicas on one clock, each step 1 us. Replica `source` serves short requests; each
// of its completions submits a new request straight to replica `target` at that very
// nanosecond, where a step of target's (a quiet stretch: one long decode) also ends.
struct CrossSubmit : ReplicaListener {
  Simulator sim;
  MetricsRecorder metrics{{"default"}, {"main"}};
  ReplicaMetrics measured{metrics, 0};  // the metrics' subscription to the replica
  EngineConfig config;
  std::vector<std::unique_ptr<Replica>> replicas;
  std::vector<std::unique_ptr<RequestState>> states;
  int source = 0, target = 1;
  std::vector<Tick> first_steps;  // of the requests sent to `target`, in order

  CrossSubmit(int source_index, bool decode_runs) : source(source_index), target(1 - source_index) {
    const auto cost = std::make_shared<testing::AffineStepCost>(1000, 0);
    const auto reg = make_policy_registry();
    for (int i = 0; i < 2; ++i) {
      replicas.push_back(std::make_unique<Replica>(sim, 0, i, config, 1000, reg.find("chunked-prefill")->factory(),
                                                   cost, measured, *this, 0));
      if (!decode_runs) replicas.back()->keep_no_decode_runs();
    }
  }
  RequestState& submit(int replica, std::int64_t output) {
    states.push_back(std::make_unique<RequestState>());
    RequestState& r = *states.back();
    r.spec.id = states.size();
    r.spec.prompt_tokens = 8;
    r.spec.output_tokens = output;
    r.spec.arrival_ns = sim.now();
    replicas[static_cast<std::size_t>(replica)]->submit(r);
    return r;
  }
  std::vector<Tick> sent;         // when they were submitted
  void on_first_scheduled(RequestState& r, Tick now) override {
    if (r.replica_index == target && r.spec.output_tokens == 3) first_steps.push_back(now);
  }
  void on_request_done(RequestState& r, Tick now) override {
    if (r.replica_index == source && sent.size() < 20) {
      sent.push_back(now);
      submit(target, 3);
      submit(source, 4);
    }
  }
};

}  // namespace

// At one nanosecond a replica's step end runs before a later replica's, so a request the
// later one's step end submits to the earlier one misses the step that starts then; one
// submitted the other way joins it. A decode run must get both right
// (Replica::apply_run_steps compares the event's place).
TEST_CASE("decode runs: a submit at a step end's nanosecond sees what the step-by-step order gives",
          "[engine][lazy]") {
  for (const int source : {0, 1}) {
    INFO("source replica " << source);
    std::vector<Tick> seen[2], sent;
    std::int64_t run_steps = 0;
    for (const bool runs : {true, false}) {
      CrossSubmit h(source, runs);
      h.submit(h.target, 400);  // the target's long decode: quiet stretches between submits
      h.submit(source, 4);
      h.sim.run();
      seen[runs ? 1 : 0] = h.first_steps;
      sent = h.sent;
      if (runs) run_steps = h.replicas[static_cast<std::size_t>(h.target)]->stats().decode_run_steps;
    }
    REQUIRE(seen[1].size() == 20);
    CHECK(seen[1] == seen[0]);
    CHECK(run_steps > 0);
    // Every step of both ends on a whole microsecond. Replica 0's step ends run first: its
    // request reaches target 1 before target 1's step of that nanosecond ends, and joins
    // the step that starts then; replica 1's reaches target 0 after that step has ended and
    // the next one started, and waits for it.
    for (std::size_t i = 0; i < sent.size(); ++i) CHECK(seen[0][i] - sent[i] == (source == 0 ? 0 : 1000));
  }
}

}  // namespace lazy_decodes_test
