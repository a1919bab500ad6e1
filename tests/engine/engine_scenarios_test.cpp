// Whole runs of the bundled engine scenarios: Sarathi-Serve's ITL claim, speculative
// decoding's sign flip with concurrency, and presets loaded through the scenario loader.
#include <cmath>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/cluster/simulation.h"
#include "sim/scenario/scenario_loader.h"

namespace engine_scenarios_test {

using namespace servesim;

namespace {

std::string scenario(const std::string& name) { return std::string(SERVESIM_SOURCE_DIR) + "/scenarios/" + name; }

RunResult run(const std::string& path, const std::vector<std::string>& sets) {
  Scenario s = load_scenario(path, sets);
  Simulation sim(s.seed, s.stop, s.workload, s.cluster);
  return sim.run();
}

const SummaryBlock& class_block(const RunResult& r, const std::string& name) {
  for (const auto& [n, b] : r.summary.classes)
    if (n == name) return b;
  FAIL("no class " << name);
  return r.summary.overall;
}

}  // namespace

TEST_CASE("engine scenarios: chunked prefill with a small budget bounds ITL p99 under long prompts (Sarathi)",
          "[policy]") {
  const std::string path = scenario("sarathi_long_prompts.yaml");
  const RunResult sarathi = run(path, {});
  const RunResult whole = run(path, {"cluster.pools.0.engine.policy=continuous",
                                     "cluster.pools.0.engine.max_batched_tokens=8192"});
  const RunResult big_chunks = run(path, {"cluster.pools.0.engine.max_batched_tokens=8192"});
  for (const RunResult* r : {&sarathi, &whole, &big_chunks}) {
    REQUIRE(r->completed == 1500);
    REQUIRE(r->summary.overall.get("saturated") == 0);
  }
  // The tail is read at p99.9: an interactive request (256 tokens, ~2 s) meets about
  // 1.5/s x 2 s = 3 long prompts, so about 1% of its gaps hold one, right at p99.
  const double p99_sarathi = class_block(sarathi, "interactive").get("p999_itl_ms");
  const double p99_whole = class_block(whole, "interactive").get("p999_itl_ms");
  const double p99_big = class_block(big_chunks, "interactive").get("p999_itl_ms");
  INFO("interactive p99.9 ITL: sarathi " << p99_sarathi << " ms, continuous " << p99_whole
                                       << " ms, chunked-prefill with 8192 " << p99_big << " ms");
  // A 4-7k-token prompt run whole stalls every decode for one long step (~130 ms on an
  // H100); with a 512-token budget no decode step carries more than 512 prompt tokens.
  CHECK(p99_whole > 4 * p99_sarathi);
  // Chunking alone is not the point: with an 8192 budget the prompts still go in whole.
  CHECK(p99_big > 4 * p99_sarathi);
  CHECK(class_block(sarathi, "interactive").get("p99_itl_ms") < 50);  // the class's ITL SLO
  // The median decode step is the same under all three: only the tail moves.
  const double p50_sarathi = class_block(sarathi, "interactive").get("median_itl_ms");
  const double p50_whole = class_block(whole, "interactive").get("median_itl_ms");
  CHECK(p50_whole == Approx(p50_sarathi).epsilon(0.25));
}

TEST_CASE("engine scenarios: speculative decoding helps at concurrency 1 and hurts at 64", "[policy]") {
  // The bundled scenario speculates; the baseline is the same text without that line.
  const std::string path = scenario("speculative_concurrency.yaml");
  std::ifstream in(path);
  std::string text, line;
  int dropped = 0;
  while (std::getline(in, line)) {
    if (line.find("speculative:") != std::string::npos && line.find('#') != 0 && line.find("  ") == 0) {
      ++dropped;
      continue;
    }
    text += line + "\n";
  }
  REQUIRE(dropped == 1);
  // The pid keeps concurrent suites (other build folders, other checkouts) apart.
  const auto plain_path = std::filesystem::temp_directory_path() /
                          ("servesim-speculative-baseline-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(plain_path) << text;

  // ITL is timed per streamed chunk: without speculation a chunk is a token, so mean ITL is
  // the time per output token; with it a chunk carries the verify step's tokens, E = (1 -
  // 0.7^6) / (1 - 0.7) = 2.941 on average (k 5, acceptance 0.7), so mean ITL is E x TPOT.
  auto tpot_ms = [](const std::string& file, int users, double tokens_per_chunk) {
    const RunResult r = run(file, {"workload.0.arrival.concurrency=" + std::to_string(users)});
    REQUIRE(r.completed == 256);
    CHECK(r.summary.overall.get("mean_itl_ms") ==
          Approx(tokens_per_chunk * r.summary.overall.get("mean_tpot_ms")).epsilon(0.03));
    return r.summary.overall.get("mean_tpot_ms");
  };
  const double e = (1 - std::pow(0.7, 6)) / (1 - 0.7);
  const double spec_1 = tpot_ms(path, 1, e), plain_1 = tpot_ms(plain_path.string(), 1, 1);
  const double spec_64 = tpot_ms(path, 64, e), plain_64 = tpot_ms(plain_path.string(), 64, 1);
  std::filesystem::remove(plain_path);
  INFO("TPOT ms: 1 user " << spec_1 << " with vs " << plain_1 << " without; 64 users " << spec_64 << " vs "
                          << plain_64);
  // One user: a decode step reads the weights for one token; verifying 6 costs about as
  // much, and 2.94 of them are kept on average, minus the draft's 5 passes.
  CHECK(spec_1 < 0.97 * plain_1);
  // 64 users: 64 x 6 verify tokens are past the H100's ridge point, and the 5 draft passes
  // grow too: speculation now costs more than the extra tokens are worth.
  CHECK(spec_64 > 1.01 * plain_64);
  // The sign flips, by a clear step in relative terms.
  CHECK(spec_64 / plain_64 - spec_1 / plain_1 > 0.07);
}

TEST_CASE("engine scenarios: an engine preset is loaded and explicit keys override it", "[policy]") {
  Scenario s = load_scenario(scenario("sarathi_long_prompts.yaml"), {"cluster.pools.0.engine.max_num_seqs=64"});
  const EngineConfig& e = s.cluster.pools.at(0).engine;
  CHECK(e.preset == "sarathi");
  CHECK(e.policy == "chunked-prefill");
  CHECK(e.max_batched_tokens == 512);
  CHECK(e.watermark == 0.01);
  CHECK(e.max_num_seqs == 64);  // the override, not the preset's 128
  for (const char* name : {"vllm", "sglang", "trtllm"}) {
    Scenario p = load_scenario(scenario("sarathi_long_prompts.yaml"), {std::string("cluster.pools.0.engine.preset=") + name});
    INFO(name);
    CHECK(p.cluster.pools.at(0).engine.preset == name);
  }
  const Scenario trt = load_scenario(scenario("sarathi_long_prompts.yaml"), {"cluster.pools.0.engine.preset=trtllm"});
  CHECK(trt.cluster.pools.at(0).engine.kv_admission == KvAdmission::reserve_full);
  CHECK(trt.cluster.pools.at(0).engine.block_size == 32);
}

}  // namespace engine_scenarios_test
