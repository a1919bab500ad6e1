// The what-if library (docs/what-if.md), claims about which phase a lever acts on: each
// runs a bundled scenario and its one-lever variant and asserts direction and size.
#include <cmath>

#include "cli/cli_test_util.h"
#include "whatif/whatif_util.h"

namespace whatif_phase_test {

using namespace servesim;
using namespace servesim::whatif;

TEST_CASE("what-if 2: weight-only quantisation cuts ITL and leaves TTFT - more FLOP/s does the opposite",
          "[whatif]") {
  const std::string f = "whatif-02-wrong-phase.yaml";
  // Hypothetical hardware and int4 weights have no measured kernels: every variant is
  // priced by the roofline, so the comparison is of one model with itself.
  const std::string roofline = "cluster.pools.0.cost_model=roofline";
  const RunResult base = run_scenario(f, {roofline});
  const RunResult int4 = run_scenario(f, {"cluster.pools.0.weights=int4", roofline});
  const RunResult compute2x = run_scenario(f, {"cluster.pools.0.hardware=hypothetical-h100-2x-compute", roofline});
  for (const RunResult* r : {&base, &int4, &compute2x}) REQUIRE(r->completed == 400);
  const auto& b = base.summary.overall;
  const double itl_int4 = change(b.get("median_itl_ms"), int4.summary.overall.get("median_itl_ms"));
  const double ttft_int4 = change(b.get("median_ttft_ms"), int4.summary.overall.get("median_ttft_ms"));
  const double itl_2x = change(b.get("median_itl_ms"), compute2x.summary.overall.get("median_itl_ms"));
  const double ttft_2x = change(b.get("median_ttft_ms"), compute2x.summary.overall.get("median_ttft_ms"));
  INFO("int4: ITL p50 " << itl_int4 * 100 << "%, TTFT p50 " << ttft_int4 * 100 << "%; 2x compute: ITL p50 "
                         << itl_2x * 100 << "%, TTFT p50 " << ttft_2x * 100 << "%");
  // Decode re-reads 16 GB of bf16 weights per step; int4 reads 4 GB of them.
  CHECK(itl_int4 < -0.35);
  CHECK(std::abs(ttft_int4) < 0.05);
  // Prefill of 7,000 tokens is compute-bound; decode is not.
  CHECK(ttft_2x < -0.30);
  CHECK(std::abs(itl_2x) < 0.10);

  // fp8 weights without fp8 tensor cores (A100: weight-only, bf16 math) act on decode only.
  const std::vector<std::string> a100 = {"cluster.pools.0.hardware=a100-80g-sxm", roofline};
  std::vector<std::string> a100_fp8 = a100;
  a100_fp8.push_back("cluster.pools.0.weights=fp8");
  const RunResult a = run_scenario(f, a100);
  const RunResult a8 = run_scenario(f, a100_fp8);
  const double itl_fp8 = change(a.summary.overall.get("median_itl_ms"), a8.summary.overall.get("median_itl_ms"));
  const double ttft_fp8 = change(a.summary.overall.get("median_ttft_ms"), a8.summary.overall.get("median_ttft_ms"));
  INFO("A100 fp8: ITL p50 " << itl_fp8 * 100 << "%, TTFT p50 " << ttft_fp8 * 100 << "%");
  CHECK(itl_fp8 < -0.20);
  CHECK(std::abs(ttft_fp8) < 0.05);
}

TEST_CASE("what-if 3: a timestamp before the system prompt destroys the hit rate and moving it restores it",
          "[whatif]") {
  const std::string f = "whatif-03-timestamp-prefix.yaml";
  const RunResult first = run_scenario(f);
  const RunResult moved = run_scenario(
      f, {"workload.0.prompt=[{shared: system, tokens: 4000}, {unique: true, tokens: 20}, "
          "{unique: true, tokens: {lognormal: {median: 200, sigma: 0.5}}}]"});
  const RunResult off = run_scenario(f, {"cluster.pools.0.engine.prefix_cache=false"});
  for (const RunResult* r : {&first, &moved, &off}) REQUIRE(r->completed == 1500);
  const double hit_first = first.summary.overall.get("prefix_cache_hit_rate");
  const double hit_moved = moved.summary.overall.get("prefix_cache_hit_rate");
  INFO("hit rate: timestamp first " << hit_first << ", timestamp after the system prompt " << hit_moved);
  CHECK(hit_first < 0.01);
  // 4,000 of ~4,230 prompt tokens are shared; only whole 16-token blocks hit and the first
  // request of each replica misses: ~0.94.
  CHECK(hit_moved > 0.9);
  // The mistake is exactly as bad as no prefix cache at all.
  CHECK(first.summary.overall.get("mean_ttft_ms") == Approx(off.summary.overall.get("mean_ttft_ms")));
  const double ttft_first = first.summary.overall.get("median_ttft_ms");
  const double ttft_moved = moved.summary.overall.get("median_ttft_ms");
  INFO("TTFT p50 " << ttft_first << " -> " << ttft_moved << " ms");
  CHECK(ttft_moved < 0.3 * ttft_first);

  // Cost. The GPU computes the prompt's 4,000 shared tokens again for every request: the
  // prompt's share of GPU time (uncached and cached input tokens at their prices) per request.
  auto prompt_cost_per_request = [](const RunResult& r) {
    const SummaryBlock& b = r.summary.overall;
    return (b.get("cost_per_1m_input_tokens") * b.get("uncached_input_tokens") +
            b.get("cost_per_1m_cached_input_tokens") * b.get("cached_input_tokens")) /
           1e6 / b.get("completed");
  };
  const double prompt_first = prompt_cost_per_request(first);
  const double prompt_moved = prompt_cost_per_request(moved);
  INFO("prompt cost per request: USD " << prompt_first << " -> " << prompt_moved);
  CHECK(prompt_moved < 0.2 * prompt_first);
  // At 4 req/s the one GPU is busy all the time either way, so its hourly bill (and the
  // run's cost per request) does not move: the saving is capacity. The most load one GPU
  // carries within a TTFT p99 of 1 s, and so the cost per request at that load.
  const std::string moved_set =
      " --set 'workload.0.prompt=[{shared: system, tokens: 4000}, {unique: true, tokens: 20}, "
      "{unique: true, tokens: {lognormal: {median: 200, sigma: 0.5}}}]'";
  const auto capacity_of = [](const std::string& extra) {
    const auto r = servesim::testing::run_cli("capacity scenarios/whatif-03-timestamp-prefix.yaml --slo ttft_p99=1s -q" + extra);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto at = r.output.find("capacity: ");
    REQUIRE(at != std::string::npos);
    return std::stod(r.output.substr(at + 10));
  };
  const double cap_first = capacity_of("");
  const double cap_moved = capacity_of(moved_set);
  const double price = 3.0;  // configs/hardware/h100-sxm.yaml, USD per GPU-hour
  INFO("capacity " << cap_first << " -> " << cap_moved << " req/s: USD " << price / 3600 / cap_first << " -> "
                   << price / 3600 / cap_moved << " per request");
  CHECK(cap_moved > 3 * cap_first);
}

TEST_CASE("what-if 4: a higher batch cap raises replica throughput and every user's ITL", "[whatif]") {
  const std::string f = "whatif-04-batch-size.yaml";
  double last_tps = 0, last_itl = 0;
  for (int cap : {4, 16, 64, 256}) {
    const RunResult r = run_scenario(f, {"cluster.pools.0.engine.max_num_seqs=" + std::to_string(cap)});
    REQUIRE(r.completed == 3000);
    const double tps = r.summary.overall.get("output_throughput");
    const double itl = r.summary.overall.get("mean_itl_ms");
    INFO("max_num_seqs " << cap << ": " << tps << " output tok/s, mean ITL " << itl << " ms");
    CHECK(tps > 1.5 * last_tps);
    CHECK(itl > last_itl);
    last_tps = tps;
    last_itl = itl;
  }
  // From 4 to 256 sequences: many times the throughput, each user at least twice as slow.
  const RunResult small = run_scenario(f, {"cluster.pools.0.engine.max_num_seqs=4"});
  const RunResult big = run_scenario(f, {"cluster.pools.0.engine.max_num_seqs=256"});
  CHECK(big.summary.overall.get("output_throughput") > 10 * small.summary.overall.get("output_throughput"));
  CHECK(big.summary.overall.get("median_itl_ms") > 2 * small.summary.overall.get("median_itl_ms"));
}

TEST_CASE("what-if 6: ten times longer answers raise TTFT only by the wait for decode steps", "[whatif]") {
  const std::string f = "whatif-06-output-limit.yaml";
  const RunResult short_out = run_scenario(f);
  const RunResult long_out = run_scenario(f, {"workload.0.output.fixed=1000"});
  REQUIRE(short_out.completed == 400);
  REQUIRE(long_out.completed == 400);
  const double ttft = change(short_out.summary.overall.get("median_ttft_ms"), long_out.summary.overall.get("median_ttft_ms"));
  const double e2e = long_out.summary.overall.get("median_e2el_ms") / short_out.summary.overall.get("median_e2el_ms");
  const auto queue_ms = [](const RunResult& r) { return r.summary.overall.get("mean_queue_ms"); };
  const auto served_ms = [&](const RunResult& r) { return r.summary.overall.get("mean_ttft_ms") - queue_ms(r); };
  const double served = change(served_ms(short_out), served_ms(long_out));
  INFO("TTFT p50 " << ttft * 100 << "%, end-to-end p50 x" << e2e << ", queue " << queue_ms(short_out) << " -> "
                   << queue_ms(long_out) << " ms, TTFT after the first step starts " << served * 100 << "%");
  // The coupling left: a prompt now mostly arrives while the engine decodes the longer
  // answers, so it waits for the step in flight and, under async scheduling, for the step
  // already planned after it (an 8B decode step on an H100 is about 6 ms), then shares
  // steps with those decodes. Once it is scheduled its TTFT is what it was.
  CHECK(std::abs(ttft) < 0.25);
  CHECK(queue_ms(long_out) - queue_ms(short_out) > 4.0);
  CHECK(std::abs(served) < 0.10);
  CHECK(e2e > 8);
}

TEST_CASE("what-if 7: separate pools stop the batch class from inflating interactive ITL p99", "[whatif]") {
  const std::string f = "whatif-07-interactive-batch.yaml";
  // The sizes below were worked out with the roofline's step times; both layouts use it.
  const RunResult shared = run_scenario(f, {"cluster.pools.0.cost_model=roofline"});
  const RunResult split = run_scenario(
      f, {"cluster.pools=[{name: interactive, replicas: 1, model: llama-3-8b, hardware: h100-sxm, classes: [chat], "
          "engine: {preset: vllm, prefix_cache: false, max_num_seqs: 64, max_batched_tokens: 1024}, cost_model: roofline}, "
          "{name: batch, replicas: 1, model: llama-3-8b, hardware: h100-sxm, classes: [batch], "
          "engine: {preset: vllm, prefix_cache: false, max_num_seqs: 256}, cost_model: roofline}]"});
  const double chat_shared = class_of(shared, "chat").get("p99_itl_ms");
  const double chat_split = class_of(split, "chat").get("p99_itl_ms");
  const double batch_shared = class_of(shared, "batch").get("median_itl_ms");
  const double batch_split = class_of(split, "batch").get("median_itl_ms");
  INFO("chat ITL p99 " << chat_shared << " -> " << chat_split << " ms; batch ITL p50 " << batch_shared << " -> "
                       << batch_split << " ms");
  CHECK(chat_split < 0.4 * chat_shared);
  CHECK(chat_split < 30);  // the chat class's ITL SLO
  // The cost: the batch class now has one GPU to itself and decodes slower (8.0 -> 9.8 ms
  // ITL p50 with the roofline fitted to the H100 kernel tables).
  CHECK(batch_split > 1.15 * batch_shared);
  CHECK(shared.summary.overall.get("saturated") == 0);
  CHECK(split.summary.overall.get("saturated") == 0);
}

TEST_CASE("what-if 10: prefill-only requests have no TTFT or ITL and their latency follows input tokens",
          "[whatif]") {
  const std::string f = "whatif-10-embeddings.yaml";
  const RunResult r512 = run_scenario(f);
  const RunResult r2048 = run_scenario(f, {"workload.0.input.fixed=2048"});
  for (const RunResult* r : {&r512, &r2048}) {
    REQUIRE(r->completed == 2000);
    CHECK(r->summary.overall.get("total_output_tokens") == 0);
    CHECK(std::isnan(r->summary.overall.get("mean_ttft_ms")));  // no first token: no TTFT, not 0
    CHECK(std::isnan(r->summary.overall.get("mean_itl_ms")));
  }
  const double ratio = r2048.summary.overall.get("median_e2el_ms") / r512.summary.overall.get("median_e2el_ms");
  INFO("end-to-end p50 at 2048 over 512 input tokens: x" << ratio);
  // 4x the tokens: a bit less than 4x the step (the fixed per-step overheads) plus queueing.
  CHECK(ratio > 2.5);
  CHECK(ratio < 4.5);
}

TEST_CASE("what-if 13: retrieving 3 passages instead of stuffing 20 documents cuts TTFT more than a 6x smaller model",
          "[whatif]") {
  const std::string f = "whatif-13-retrieval.yaml";
  const RunResult stuffed = run_scenario(f);
  const RunResult retrieved = run_scenario(f, {"workload.0.prompt.0.tokens=3000"});
  const RunResult small = run_scenario(f, {"cluster.pools.0.model=llama-3.2-1b"});
  for (const RunResult* r : {&stuffed, &retrieved, &small}) REQUIRE(r->completed == 300);
  const double base = stuffed.summary.overall.get("median_ttft_ms");
  const double cut_retrieval = base / retrieved.summary.overall.get("median_ttft_ms");
  const double cut_small = base / small.summary.overall.get("median_ttft_ms");
  INFO("TTFT p50 " << base << " ms; retrieval cuts it x" << cut_retrieval << ", the small model x" << cut_small);
  // 20,060 -> 3,060 prompt tokens is a 6.6x cut; quadratic attention makes TTFT's cut larger.
  CHECK(cut_retrieval > 6.6);
  // Qwen2.5-7B has 7.61B parameters, Llama-3.2-1B 1.24B (6.1x fewer): attention over 20k
  // tokens and per-layer overheads do not shrink with them.
  CHECK(cut_small < 6.1);
  CHECK(cut_small < 0.6 * cut_retrieval);
}

TEST_CASE("what-if 9: speculative decoding can be switched off by --set for the baseline", "[whatif]") {
  // The full claim (helps 1 user, hurts 64) is tested in tests/engine/engine_scenarios_test.cpp;
  // here: `speculative: off` really gives the plain engine, whose TPOT is one target step.
  const RunResult spec = run_scenario("speculative_concurrency.yaml");
  const RunResult plain = run_scenario("speculative_concurrency.yaml", {"cluster.pools.0.engine.speculative=off"});
  REQUIRE(spec.completed == 256);
  REQUIRE(plain.completed == 256);
  const double tpot_spec = spec.summary.overall.get("mean_tpot_ms");
  const double tpot_plain = plain.summary.overall.get("mean_tpot_ms");
  INFO("1 user TPOT: " << tpot_spec << " ms with k=5, " << tpot_plain << " ms without");
  CHECK(tpot_spec < tpot_plain);
  CHECK(tpot_spec > 0.5 * tpot_plain);
  CHECK_THROWS_AS(load_scenario(scenario_path("speculative_concurrency.yaml"), {"cluster.pools.0.engine.speculative=true"}),
                  ConfigError);
}

TEST_CASE("what-if 8: chunked prefill bounds interactive ITL p99 at a small TTFT cost to the long prompts",
          "[whatif]") {
  // The ITL side is tested in detail in tests/engine/engine_scenarios_test.cpp; here both sides.
  const RunResult chunked = run_scenario("sarathi_long_prompts.yaml");
  const RunResult whole = run_scenario("sarathi_long_prompts.yaml", {"cluster.pools.0.engine.policy=continuous",
                                                                     "cluster.pools.0.engine.max_batched_tokens=8192"});
  // p99.9: about 1% of an interactive request's gaps meet a long prompt (engine_scenarios_test).
  const double itl_chunked = class_of(chunked, "interactive").get("p999_itl_ms");
  const double itl_whole = class_of(whole, "interactive").get("p999_itl_ms");
  const double ttft_chunked = class_of(chunked, "long-prompt").get("median_ttft_ms");
  const double ttft_whole = class_of(whole, "long-prompt").get("median_ttft_ms");
  INFO("interactive ITL p99.9 " << itl_whole << " -> " << itl_chunked << " ms; long-prompt TTFT p50 " << ttft_whole
                              << " -> " << ttft_chunked << " ms");
  CHECK(itl_chunked < 0.25 * itl_whole);
  CHECK(ttft_chunked > ttft_whole);        // chunks of 512 take more steps to finish a prompt
  CHECK(ttft_chunked < 1.6 * ttft_whole);  // but not many more
}

}  // namespace whatif_phase_test
