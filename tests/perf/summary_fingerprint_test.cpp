// Speed-ups must not change results: whole runs of the repo's scenarios and of the
// throughput benchmark, reduced to a fingerprint of their summary figures, pinned.
// The fingerprint covers the vLLM benchmark fields of docs/metrics.md (and the prefix-cache hit
// rate) of the overall block at full precision, so a field added later does not move it,
// while any change to a step's duration, a token's time or a request's fate does. Each
// re-pin is a deliberate change of results, said in its commit (git log of this file).
// When a change is meant to alter
// results, the failing check prints the fingerprint text: check that the change in those
// figures is the intended one, then pin the new digest (docs/performance.md).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/scenario/scenario_loader.h"

namespace summary_fingerprint_test {

using namespace servesim;

namespace {

// FNV-1a, 64 bits: a fixed, dependency-free digest of the text below.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

struct Fingerprint {
  std::string text;  // "name=value" lines, values with 17 significant digits
  std::uint64_t digest = 0;
};

Fingerprint fingerprint_of(const std::string& scenario, const std::vector<std::string>& sets) {
  const Scenario s = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/" + scenario, sets);
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  const RunResult r = sim.run();
  static const char* const kFields[] = {
      "completed", "total_input_tokens", "total_output_tokens", "duration", "request_throughput",
      "output_throughput", "total_token_throughput", "mean_ttft_ms", "median_ttft_ms", "std_ttft_ms",
      "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms", "mean_itl_ms", "median_itl_ms",
      "p99_itl_ms", "mean_e2el_ms", "median_e2el_ms", "p99_e2el_ms", "p999_itl_ms", "p999_ttft_ms",
      "p90_queue_ms", "prefix_cache_hit_rate", "rejected"};
  Fingerprint f;
  char line[128];
  for (const char* name : kFields) {
    std::snprintf(line, sizeof line, "%s=%.17g\n", name, r.summary.overall.get(name));
    f.text += line;
  }
  std::snprintf(line, sizeof line, "steps=%lld\n", static_cast<long long>(r.steps));
  f.text += line;
  f.digest = fnv1a(f.text);
  return f;
}

}  // namespace

TEST_CASE("the quickstart scenario keeps its pinned summary fingerprint", "[perf][determinism]") {
  const Fingerprint f = fingerprint_of("scenarios/quickstart.yaml", {"stop.requests=500"});
  INFO(f.text);
  CHECK(f.digest == 0x10c5ffc58bf0beabULL);
}

TEST_CASE("the prefix caching scenario keeps its pinned summary fingerprint", "[perf][determinism]") {
  const Fingerprint f = fingerprint_of("scenarios/prefix-caching.yaml", {"stop.requests=1500"});
  INFO(f.text);
  CHECK(f.digest == 0xf1950331db1af9e7ULL);
}

TEST_CASE("the speculative decoding scenario keeps its pinned summary fingerprint", "[perf][determinism]") {
  const Fingerprint f = fingerprint_of("scenarios/speculative_concurrency.yaml",
                                       {"stop.requests=64", "workload.0.arrival.concurrency=8"});
  INFO(f.text);
  CHECK(f.digest == 0x4aa8369f5abd1c08ULL);  // ITL per streamed chunk; the vllm preset's front end
}

TEST_CASE("the throughput benchmark keeps its pinned summary fingerprint", "[perf][determinism]") {
  const Fingerprint f = fingerprint_of(
      "bench/throughput.yaml",
      {"stop.requests=4000", "cluster.pools.0.replicas=4", "workload.0.arrival.rate=16"});
  INFO(f.text);
  CHECK(f.digest == 0x8d3f6f61e4fce374ULL);
}

}  // namespace summary_fingerprint_test
