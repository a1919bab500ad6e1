// `servesim explain` through the real binary: the levers move the phase they act on.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli/cli_test_util.h"

namespace explain_test {

using namespace servesim::testing;

namespace {

// One user at a time with 8000-token prompts on an A100, which has no fp8 tensor cores:
// fp8 weights then halve the bytes every decode step reads (decode is memory-bound) but
// leave prefill's bf16 FLOPs (compute-bound at this length) as they were. The A100's
// kernel tables have no fp8 rows, so that variant is priced by the roofline and compared
// with the base priced by the roofline.
const char* kLongPrompts = R"(name: long-prompts
seed: 2
stop: {requests: 12}
workload:
  - class: docs
    arrival: {process: closed, concurrency: 1}
    input: {fixed: 8000}
    output: {fixed: 64}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: a100-80g-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 32, max_batched_tokens: 8192}
outputs: {requests_csv: false}
)";

// Every prompt starts with the same 3000-token system prompt; the cache is off.
const char* kSharedPrompt = R"(name: shared-prompt
seed: 4
stop: {requests: 60}
workload:
  - class: qa
    arrival: {process: poisson, rate: 2}
    prompt:
      - {shared: system, tokens: 3000}
      - {unique: true, tokens: {fixed: 100}}
    output: {fixed: 32}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 8192, prefix_cache: false}
outputs: {requests_csv: false}
)";

const nlohmann::json& variant(const nlohmann::json& j, const std::string& lever) {
  for (const auto& v : j["variants"])
    if (v["lever"] == lever) return v;
  FAIL("no variant " << lever);
  static const nlohmann::json none;
  return none;
}

}  // namespace

TEST_CASE("explain: on long prompts fp8 weights move ITL much more than TTFT", "[cli][explain]") {
  TempDir dir("explain-long");
  const auto scenario = dir.write("long.yaml", kLongPrompts);
  const auto r = run_cli("explain " + scenario.string() + " --json --jobs 2 --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j == nlohmann::json::parse(read_file(dir.path / "explain.json")));
  const auto& fp8 = variant(j, "weights fp8");
  CHECK(fp8["compared_with"].get<std::string>().find("base priced by the roofline") == 0);
  CHECK(variant(j, "max_num_seqs x2")["compared_with"] == "base");
  const double ttft = fp8["change"]["median_ttft_ms"].get<double>();
  const double itl = fp8["change"]["median_itl_ms"].get<double>();
  // Decode reads ~16 GB of bf16 weights per step; fp8 halves that, so ITL falls by about
  // 40 % (KV reads and overheads do not shrink). Prefill of 8000 tokens is ~1.3e14 FLOPs
  // at bf16 rate either way.
  CHECK(itl < -0.25);
  CHECK(std::fabs(ttft) < std::fabs(itl) / 4);
  CHECK(j["metrics"]["median_itl_ms"]["owner"] == "decode");
  // Every lever either ran or is listed as skipped with a reason.
  CHECK(j["variants"].size() + j["skipped"].size() == 10);
  for (const auto& s : j["skipped"]) CHECK_FALSE(s["reason"].get<std::string>().empty());
}

TEST_CASE("explain: prefix caching on a shared prompt moves TTFT and is ranked first for it", "[cli][explain]") {
  TempDir dir("explain-shared");
  const auto scenario = dir.write("shared.yaml", kSharedPrompt);
  const auto r = run_cli("explain " + scenario.string() + " --jobs 2 --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("TTFT p50 (base") != std::string::npos);
  CHECK(r.output.find("owned by prefill") != std::string::npos);
  CHECK(r.output.find("skipped:") != std::string::npos);
  const auto j = nlohmann::json::parse(read_file(dir.path / "explain.json"));
  const auto& cache = variant(j, "prefix caching on");
  // 3000 of 3100 prompt tokens hit after the first request: prefill work falls ~30x.
  CHECK(cache["change"]["median_ttft_ms"].get<double>() < -0.5);
  CHECK(std::fabs(cache["change"]["median_itl_ms"].get<double>()) < 0.1);
  CHECK(j["metrics"]["median_ttft_ms"]["ranking"][0]["lever"] == "prefix caching on");
  CHECK(j["metrics"]["median_ttft_ms"]["owner"] == "prefill");
}

TEST_CASE("explain: a lever that cannot apply is skipped with its reason", "[cli][explain]") {
  TempDir dir("explain-skip");
  const auto scenario = dir.write("shared.yaml", kSharedPrompt);
  const auto r = run_cli("explain " + scenario.string() + " --json --jobs 2 --set cluster.pools.0.weights=int4" +
                         " --set stop.requests=10 --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  bool int4_skipped = false;
  for (const auto& s : j["skipped"])
    if (s["lever"] == "weights int4") int4_skipped = s["reason"] == "the weights are already int4";
  CHECK(int4_skipped);
  CHECK(variant(j, "weights fp8")["overrides"][0] == "cluster.pools.0.weights=fp8");
  CHECK(run_cli("explain").exit_code == 2);
}

TEST_CASE("explain: with the cache on in the base turning it off shows prefill owns TTFT", "[cli][explain]") {
  TempDir dir("explain-undo");
  const auto scenario = dir.write("shared.yaml", kSharedPrompt);
  const auto r = run_cli("explain " + scenario.string() + " --json --jobs 2 --set cluster.pools.0.engine.prefix_cache=true" +
                         " --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  const auto& off = variant(j, "prefix caching off");
  // Without the cache every prompt computes 3100 tokens instead of ~100: TTFT several times longer.
  CHECK(off["change"]["median_ttft_ms"].get<double>() > 1.0);
  CHECK(j["metrics"]["median_ttft_ms"]["owner"] == "prefill");
  CHECK(j["metrics"]["median_ttft_ms"]["ranking"][0]["lever"] == "prefix caching off");
}

TEST_CASE("explain: two replicas split into a prefill and a decode pool that runs - one replica is skipped",
          "[cli][explain]") {
  TempDir dir("explain-split");
  const auto scenario = dir.write("shared.yaml", kSharedPrompt);
  const auto r = run_cli("explain " + scenario.string() + " --json --jobs 2 --set cluster.pools.0.replicas=2" +
                         " --out " + dir.path.string());
  INFO(r.output.substr(0, 2000));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  const auto& split = variant(j, "separate prefill and decode pools");
  const std::string set = split["overrides"][0].get<std::string>();
  CHECK(set.rfind("cluster.pools=", 0) == 0);
  CHECK(set.find("role: prefill") != std::string::npos);
  CHECK(set.find("decode_pool: main-decode") != std::string::npos);
  CHECK(set.find("role: decode") != std::string::npos);
  // It ran: TTFT now includes the KV hand-over and one prefill GPU instead of two.
  CHECK(split["change"]["median_ttft_ms"].get<double>() != 0.0);

  const auto one = run_cli("explain " + scenario.string() + " --json --jobs 2 --set stop.requests=10 --out " +
                           dir.path.string() + "/one");
  REQUIRE(one.exit_code == 0);
  bool skipped = false;
  const auto one_json = nlohmann::json::parse(one.output);
  for (const auto& s : one_json["skipped"])
    if (s["lever"] == "separate prefill and decode pools")
      skipped = s["reason"].get<std::string>().find("at least 2 replicas") != std::string::npos;
  CHECK(skipped);
}

}  // namespace explain_test
