// The invariants of docs/INVARIANTS.md, checked during and after small runs that each push
// one part of the engine: chunked prompts, whole-prompt batching, a KV cache so small that
// requests are preempted and recomputed, a run cut by stop.time, prefill-only requests and
// a closed loop. Every run is built directly through Simulation, with an InvariantChecker
// (sim/cluster/invariant_checker.h) on every replica's steps and on every request record.
#include <catch2/catch.hpp>

#include "sim/cluster/invariant_checker.h"
#include "sim/scenario/model_loader.h"
#include "workload/workload_test_util.h"

namespace invariants_test {

using namespace servesim;

namespace {

using servesim::testing::dist;
DistSpec fixed(double v) { return dist(DistSpec::Kind::fixed, v); }
DistSpec uniform(double lo, double hi) { return dist(DistSpec::Kind::uniform, lo, hi); }
DistSpec lognormal(double median, double sigma, double max) {
  DistSpec d = dist(DistSpec::Kind::lognormal, median, sigma);
  d.max = max;
  return d;
}

ClassSpec poisson(std::string name, double rate_per_s, DistSpec input, DistSpec output) {
  ClassSpec c;
  c.name = std::move(name);
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::poisson;
  c.arrival->rate_per_s = rate_per_s;
  c.input = input;
  c.output = output;
  return c;
}

PoolConfig pool(const std::string& policy, int replicas, std::int64_t max_batched_tokens,
                std::optional<std::int64_t> kv_cache_tokens = std::nullopt) {
  PoolConfig p;
  p.name = "main";
  p.replicas = replicas;
  p.model = load_model("llama-3-8b");
  p.hardware = load_hardware("h100-sxm");
  p.engine.policy = policy;
  p.engine.max_num_seqs = 64;
  p.engine.max_batched_tokens = max_batched_tokens;
  p.engine.kv_cache_tokens = kv_cache_tokens;
  return p;
}

struct Checked {
  RunResult result;
  InvariantChecker::Figures seen;
};

// Runs the scenario with a checker attached; fails the test on any violation.
Checked run_checked(std::uint64_t seed, StopSpec stop, std::vector<ClassSpec> classes, PoolConfig p,
                    std::int64_t max_in_flight = 0) {
  ClusterConfig cluster;
  cluster.pools.push_back(std::move(p));
  cluster.router = "round-robin";
  Simulation sim(seed, stop, std::move(classes), cluster);
  InvariantChecker checker(sim);
  checker.set_max_in_flight(max_in_flight);
  Checked out{sim.run(), {}};
  checker.check_end(out.result);
  INFO(checker.report());
  CHECK(checker.violations().empty());
  out.seen = checker.figures();
  return out;
}

StopSpec after_requests(std::int64_t n) {
  StopSpec s;
  s.requests = n;
  return s;
}

double class_field(const RunResult& r, const std::string& cls, const std::string& field) {
  for (const auto& [name, block] : r.summary.classes)
    if (name == cls) return block.get(field);
  FAIL("no class " << cls);
  return 0;
}

}  // namespace

TEST_CASE("invariants: chunked prefill splits long prompts and keeps every invariant", "[reliability]") {
  // Prompts up to 6000 tokens against a 512-token budget must be cut into chunks.
  const auto run = run_checked(7, after_requests(300),
                               {poisson("chat", 20, lognormal(1500, 0.5, 6000), uniform(1, 64))},
                               pool("chunked-prefill", 2, 512));
  CHECK(run.result.completed == 300);
  CHECK(run.result.rejected == 0);
  CHECK(run.seen.partial_prompt_chunks > 0);
  CHECK(run.seen.decode_chunks > 0);
  CHECK(run.seen.steps == run.result.steps);
}

TEST_CASE("invariants: continuous batching keeps every invariant", "[reliability]") {
  const auto run = run_checked(8, after_requests(300),
                               {poisson("chat", 20, lognormal(1500, 0.5, 6000), uniform(1, 64))},
                               pool("continuous", 2, 8192));
  CHECK(run.result.completed == 300);
  CHECK(run.seen.partial_prompt_chunks == 0);  // whole prompts only
  CHECK(run.seen.decode_chunks > 0);
}

TEST_CASE("invariants: a tiny KV cache forces preemptions and rejects what can never fit", "[reliability]") {
  for (const char* policy : {"chunked-prefill", "continuous"}) {
    SECTION(policy) {
      // 2048 tokens = 128 blocks of 16. A chat request holds at most 800 + 299 tokens, so
      // it fits alone but two or three of them do not; a 3000-token prompt never fits.
      const auto run = run_checked(
          11, after_requests(250),
          {poisson("chat", 40, uniform(200, 800), uniform(100, 300)), poisson("huge", 2, fixed(3000), fixed(10))},
          pool(policy, 1, 4096, 2048));
      CHECK(run.result.preemptions > 0);
      CHECK(run.seen.max_kv_used_blocks <= 128);
      CHECK(run.seen.max_kv_used_blocks > 100);  // the cache really was full
      CHECK(class_field(run.result, "huge", "completed") == 0);
      CHECK(class_field(run.result, "huge", "rejected") > 0);
      CHECK(class_field(run.result, "chat", "rejected") == 0);
      CHECK(run.result.summary.overall.rejected_reasons.at("exceeds_kv_capacity") == run.result.rejected);
      CHECK(run.result.completed + run.result.rejected == 250);
    }
  }
}

TEST_CASE("invariants: stop.time cuts an overloaded run at exactly that time", "[reliability]") {
  // About 5x what one replica serves: the queue grows until stop.time ends the run.
  StopSpec stop;
  stop.time_ns = 3 * kNsPerSec;
  const auto run = run_checked(3, stop, {poisson("chat", 100, uniform(500, 1500), uniform(50, 150))},
                               pool("chunked-prefill", 1, 2048));
  CHECK(run.result.stopped_by_time);
  CHECK(run.result.end_ns == 3 * kNsPerSec);
  CHECK(run.result.unfinished > 0);
  CHECK(run.result.completed > 0);
  CHECK(run.result.arrived == run.result.completed + run.result.unfinished);
}

TEST_CASE("invariants: prefill-only (embedding) requests finish with no token", "[reliability]") {
  const auto run = run_checked(5, after_requests(400),
                               {poisson("chat", 10, uniform(100, 2000), uniform(1, 50)),
                                poisson("embed", 30, uniform(16, 512), fixed(0))},
                               pool("chunked-prefill", 1, 1024));
  CHECK(run.result.completed == 400);
  CHECK(class_field(run.result, "embed", "completed") > 200);
  CHECK(class_field(run.result, "embed", "total_output_tokens") == 0);
}

TEST_CASE("invariants: a closed loop never has more requests inside than users", "[reliability]") {
  ClassSpec c;
  c.name = "agents";
  c.arrival = ArrivalSpec{};
  c.arrival->process = ArrivalSpec::Process::closed;
  c.arrival->concurrency = 6;
  c.arrival->think_time_s = dist(DistSpec::Kind::exponential, 0.05);
  c.input = uniform(100, 3000);
  c.output = uniform(1, 100);
  const auto run = run_checked(9, after_requests(200), {c}, pool("chunked-prefill", 2, 1024), 6);
  CHECK(run.result.completed == 200);
  CHECK(run.seen.max_in_flight_seen == 6);  // and every user was busy at some step
}

TEST_CASE("invariants: the same seed gives the same records - another seed other records", "[reliability]") {
  auto once = [](std::uint64_t seed) {
    return run_checked(seed, after_requests(150), {poisson("chat", 30, uniform(100, 3000), uniform(1, 80))},
                       pool("chunked-prefill", 2, 1024, 8192))
        .seen.fingerprint;
  };
  const std::uint64_t a = once(21);
  CHECK(a == once(21));
  CHECK(a != once(22));
}

}  // namespace invariants_test
