// `servesim run --check-invariants` on every bundled scenario and on a stress mix of the
// engine's features, so the invariants of docs/INVARIANTS.md are checked during runs of
// real scenarios too, not only the hand-built ones of tests/invariants_test.cpp.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace check_invariants_cli_test {

using namespace servesim::testing;
namespace fs = std::filesystem;

TEST_CASE("check-invariants: every bundled scenario keeps every invariant", "[reliability]") {
  TempDir dir("check-bundled");
  int scenarios = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SERVESIM_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    ++scenarios;
    const auto out = dir.path / entry.path().stem();
    // 300 requests keep each run short; the checker watches every step of it.
    const auto r = run_cli("run " + entry.path().string() + " --check-invariants --set stop.requests=300 --out " +
                           out.string());
    INFO(entry.path().filename().string() << ":\n" << r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("invariants (docs/INVARIANTS.md): all held") != std::string::npos);
    CHECK(fs::exists(out / "summary.json"));
  }
  CHECK(scenarios >= 1);
}

TEST_CASE("check-invariants: prefix caching - swapping and speculation under a tiny cache keep every invariant",
          "[reliability]") {
  // Shared prefixes and multi-turn sessions (cache hits), a cache of 6000 tokens (swaps and
  // evictions), speculative decoding (several tokens in one step), two policies.
  TempDir dir("check-stress");
  const auto scenario = dir.write("stress.yaml", R"(name: stress
seed: 5
stop: {requests: 400}
workload:
  - class: qa
    arrival: {process: poisson, rate: 40}
    prompt:
      - {shared: system, tokens: 600}
      - {pool: docs, count: 20, zipf: 1.1, tokens: {uniform: [100, 1200]}}
      - {unique: true, tokens: {uniform: [10, 200]}}
    output: {uniform: [1, 200]}
  - class: chat
    arrival: {process: poisson, rate: 5}
    prompt:
      - {shared: system, tokens: 600}
      - {unique: true, tokens: {uniform: [20, 300]}}
    output: {uniform: [1, 100]}
    session:
      turns: {uniform: [2, 5]}
      think_time: {exponential: {mean: 1s}}
      new_input: {uniform: [10, 100]}
  - class: embed
    arrival: {process: poisson, rate: 5}
    input: {uniform: [16, 256]}
    output: {fixed: 0}
cluster:
  pools:
    - name: main
      replicas: 2
      model: llama-3-8b
      hardware: h100-sxm
      engine:
        policy: chunked-prefill
        max_num_seqs: 32
        max_batched_tokens: 1024
        prefix_cache: true
        kv_cache_tokens: 6000
        preemption_mode: swap
        speculative: {method: ngram, k: 3, acceptance: 0.6}
  router: prefix-affinity
)");
  for (const char* policy : {"chunked-prefill", "continuous"}) {
    const auto out = dir.path / policy;
    const auto r = run_cli("run " + scenario.string() + " --check-invariants --set cluster.pools.0.engine.policy=" +
                           policy + " --out " + out.string());
    INFO(policy << ":\n" << r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("all held") != std::string::npos);
    REQUIRE(fs::exists(out / "summary.json"));
    const auto j = nlohmann::json::parse(read_file(out / "summary.json"));
    CHECK(j["completed"].get<long>() + j["rejected"].get<long>() == 400);
    CHECK(j["prefix_cache_hit_rate"].get<double>() > 0);  // the cache really served hits
  }
}

}  // namespace check_invariants_cli_test
