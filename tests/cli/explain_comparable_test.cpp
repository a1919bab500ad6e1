// `servesim explain` through the real binary: figures that cannot be set against the base's.
// Speculative decoding is judged by TPOT (its accepted draft tokens come in one chunk per step), an
// overloaded variant is marked and ranked last, and each pool gets its own replica lever.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli/cli_test_util.h"

namespace explain_comparable_test {

using namespace servesim::testing;

namespace {

// Poisson arrivals at 7 req/s of 128 output tokens against max_num_seqs 8 on one H100: about
// three quarters of what the batch cap lets through, so the base keeps up and half the cap
// cannot.
const char* kLoaded = R"(name: loaded
seed: 3
stop: {requests: 400}
workload:
  - class: chat
    arrival: {process: poisson, rate: 7}
    input: {fixed: 256}
    output: {fixed: 128}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 8, max_batched_tokens: 8192}
outputs: {requests_csv: false}
)";

const nlohmann::json& variant(const nlohmann::json& j, const std::string& lever) {
  for (const auto& v : j["variants"])
    if (v["lever"] == lever) return v;
  FAIL("no variant " << lever);
  static const nlohmann::json none;
  return none;
}

const nlohmann::json& ranked(const nlohmann::json& ranking, const std::string& lever) {
  for (const auto& r : ranking)
    if (r["lever"] == lever) return r;
  FAIL("no ranking entry " << lever);
  static const nlohmann::json none;
  return none;
}

double summary_field(const std::filesystem::path& out, const std::string& field) {
  return nlohmann::json::parse(read_file(out / "summary.json"))[field].get<double>();
}

const std::string kSpeculative = "speculative decoding (llama-3.2-1b draft, k 4)";

}  // namespace

TEST_CASE("explain: speculative decoding is ranked by its TPOT change and not by ITL p50", "[cli][explain]") {
  TempDir dir("explain-spec");
  // The bundled scenario with its own speculation turned off, so the lever applies.
  const std::string scenario =
      "scenarios/speculative_concurrency.yaml --set cluster.pools.0.engine.speculative=off --set stop.requests=64";
  const auto r = run_cli("explain " + scenario + " --json --jobs 2 --out " + dir.path.string() + "/explain");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);

  // TPOT p50 of the base and of the lever's variant, from two plain runs.
  REQUIRE(run_cli("run " + scenario + " -q --out " + dir.path.string() + "/base").exit_code == 0);
  REQUIRE(run_cli("run " + scenario + " -q --set 'cluster.pools.0.engine.speculative={draft: llama-3.2-1b, k: 4, " +
                  "acceptance: 0.7}' --out " + dir.path.string() + "/spec")
              .exit_code == 0);
  const double base_tpot = summary_field(dir.path / "base", "median_tpot_ms");
  const double spec_tpot = summary_field(dir.path / "spec", "median_tpot_ms");
  const double tpot_change = (spec_tpot - base_tpot) / base_tpot;

  const auto& tpot = j["metrics"]["median_tpot_ms"];
  const auto& entry = ranked(tpot["ranking"], kSpeculative);
  CHECK(entry["change"].get<double>() == Approx(tpot_change).epsilon(1e-9));
  CHECK(entry["comparable"] == true);
  // Faster per token (about 3 tokens per verify pass at acceptance 0.7), but not by 100 %.
  CHECK(tpot_change < -0.1);
  CHECK(tpot_change > -0.9);
  CHECK(tpot["base"].get<double>() == Approx(base_tpot).epsilon(1e-9));

  // ITL is timed per streamed chunk: a gap is now a verify step, longer than the base's
  // decode step, though each carries about 3 tokens. It is kept, marked and ranked last.
  const auto& spec = variant(j, kSpeculative);
  CHECK(spec["several_tokens_per_step"] == true);
  CHECK(spec["change"]["median_itl_ms"].get<double>() > 0);
  const auto& itl_ranking = j["metrics"]["median_itl_ms"]["ranking"];
  CHECK(itl_ranking.back()["lever"] == kSpeculative);
  CHECK(itl_ranking.back()["comparable"] == false);
  CHECK(itl_ranking[0]["lever"] != kSpeculative);
  CHECK(variant(j, "weights fp8")["several_tokens_per_step"] == false);

  // The text ranks TPOT with ITL beside it and says why ITL is not the measure.
  const auto text = run_cli("explain " + scenario + " --jobs 2 --out " + dir.path.string() + "/text");
  REQUIRE(text.exit_code == 0);
  CHECK(text.output.find("TPOT p50 (base") != std::string::npos);
  CHECK(text.output.find("% (several tokens per step)") != std::string::npos);
  CHECK(text.output.find("judge by TPOT") != std::string::npos);
  CHECK(text.output.find("\nITL p50 (base") == std::string::npos);
}

TEST_CASE("explain: a variant that saturates is marked overloaded and never ranked", "[cli][explain]") {
  TempDir dir("explain-overload");
  const auto scenario = dir.write("loaded.yaml", kLoaded);
  const auto r = run_cli("explain " + scenario.string() + " --json --jobs 2 --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["base_overload"] == "");
  CHECK(j["base_too_short"] == "");
  // 400 requests at 7 req/s cannot tell a 5% shortfall from noise: every run is doubled.
  CHECK(j["lengthened"] == "every run lengthened 2x to 800 requests, so each can be judged");
  const auto& half = variant(j, "max_num_seqs /2");
  CHECK(half["overloaded"] == true);
  // Decode steps of 4 sequences read the weights each time: memory-bound, so a bigger
  // batch, not more FLOP/s, is what raises throughput.
  CHECK(half["overload"] == "saturated by max_num_seqs, short of memory_bandwidth");
  CHECK(half["too_short_to_judge"] == false);
  CHECK(variant(j, "max_num_seqs x2")["overloaded"] == false);
  for (const auto& [field, m] : j["metrics"].items()) {
    INFO(field);
    for (const auto& entry : m["ranking"]) CHECK(entry["lever"] != "max_num_seqs /2");
    REQUIRE(m["not_ranked"].size() == 1);
    CHECK(m["not_ranked"][0]["lever"] == "max_num_seqs /2");
    CHECK(m["not_ranked"][0]["because"] == "overloaded: saturated by max_num_seqs, short of memory_bandwidth");
  }
  // Its TTFT grows by orders of magnitude, the largest move of any lever, yet it is not ranked.
  CHECK(half["change"]["p99_ttft_ms"].get<double>() > 1.0);
  CHECK(j["metrics"]["p99_ttft_ms"]["ranking"][0]["lever"] != "max_num_seqs /2");

  const auto text = run_cli("explain " + scenario.string() + " --jobs 2 --out " + dir.path.string() + "/text");
  REQUIRE(text.exit_code == 0);
  CHECK(text.output.find("  not ranked: max_num_seqs /2 [capacity] ") != std::string::npos);
  CHECK(text.output.find(": overloaded: saturated by max_num_seqs, short of memory_bandwidth\n") != std::string::npos);
}

TEST_CASE("explain: each pool of a two-pool cluster gets its own one-more-replica variant", "[cli][explain]") {
  TempDir dir("explain-pools");
  const auto r = run_cli("explain scenarios/disaggregated.yaml --set stop.requests=100 --json --jobs 2 --out " +
                         dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  const auto& prefill = variant(j, "one more replica in pool prefill");
  const auto& decode = variant(j, "one more replica in pool decode");
  CHECK(prefill["overrides"] == nlohmann::json::array({"cluster.pools.0.replicas=3"}));
  CHECK(decode["overrides"] == nlohmann::json::array({"cluster.pools.1.replicas=3"}));
  CHECK(prefill["phase"] == "capacity");
  for (const auto& v : j["variants"]) CHECK(v["lever"] != "one more replica");
  // A third prefill replica shortens the prompt queue; a third decode replica cannot.
  CHECK(prefill["change"]["median_ttft_ms"].get<double>() < 0);
  // Prompts longer than the model's context are rejected by the base and every variant
  // alike: that is the workload, not an overload.
  CHECK(j["base_overload"] == "");
  CHECK(decode["overloaded"] == false);
}

}  // namespace explain_comparable_test
