// Cost per token class, SLO goodput and utilisation in summary.json, from runs of the real
// binary whose figures can be worked out by hand (docs/metrics.md).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli_test_util.h"

namespace cost_goodput_test {

using namespace servesim::testing;

namespace {

// Two requests a second apart, each 100 prompt tokens and 5 output tokens, on one
// replica of 2 H100s ($3.00 per GPU-hour: $6 an hour) whose every step takes 10 ms. Each
// request: one 10 ms prefill step (first token), then 4 decode steps; they never overlap.
constexpr const char* kHandScenario = R"(name: cost-by-hand
seed: 1
stop: {requests: 2}
workload:
  - class: default
    arrival: {process: constant, rate: 1}
    input: {fixed: 100}
    output: {fixed: 5}
    slo: {ttft: 15ms, itl: 10ms}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      tp: 2
      engine: {policy: chunked-prefill, max_num_seqs: 8, max_batched_tokens: 512, block_size: 16}
      cost_model: {constant: {step: 10ms}}
outputs: {requests_csv: false}
)";

nlohmann::json run_summary(const std::string& name, const std::string& sets = "") {
  TempDir dir(name);
  const auto scenario = dir.write("s.yaml", kHandScenario);
  const auto r = run_cli("run " + scenario.string() + " --quiet --out " + dir.path.string() + sets);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(read_file(dir.path / "summary.json"));
}

}  // namespace

TEST_CASE("cost: constant steps split into prefill and decode GPU time priced per GPU-hour by hand",
          "[metrics][cost]") {
  const auto j = run_summary("cost-hand");
  REQUIRE(j["completed"].get<long>() == 2);
  REQUIRE(j["mean_ttft_ms"].get<double>() == Approx(10));
  // $6 per replica-hour is 6 / 3.6e12 $ per ns. Prefill: 2 steps of 1e7 ns for 200 input
  // tokens; decode: 8 steps of 1e7 ns for 10 output tokens.
  const double usd_per_ns = 6.0 / 3.6e12;
  const double prefill_usd = 2 * 1e7 * usd_per_ns;  // 3.333e-5
  const double decode_usd = 8 * 1e7 * usd_per_ns;   // 1.333e-4
  CHECK(j["cost_usd"].get<double>() == Approx(prefill_usd + decode_usd));
  CHECK(j["cost_per_1m_input_tokens"].get<double>() == Approx(prefill_usd / 200 * 1e6));  // $0.1667
  CHECK(j["cost_per_1m_output_tokens"].get<double>() == Approx(decode_usd / 10 * 1e6));   // $13.33
  CHECK(j["cost_per_1m_cached_input_tokens"].get<double>() == 0);
  CHECK(j["cost_per_request"].get<double>() == Approx((prefill_usd + decode_usd) / 2));
  CHECK(j["sessions"].get<long>() == 2);
  CHECK(j["cost_per_session"].get<double>() == Approx((prefill_usd + decode_usd) / 2));
  CHECK(j["uncached_input_tokens"].get<long>() == 200);
  CHECK(j["cached_input_tokens"].get<long>() == 0);
  // Attribution: all of each TTFT is its own prefill step, each gap its own decode step.
  CHECK(j["ttft_attribution"]["prefill_compute_ms"].get<double>() == Approx(10));
  CHECK(j["ttft_attribution"]["queue_ms"].get<double>() == 0);
  CHECK(j["itl_attribution"]["decode_compute_ms"].get<double>() == Approx(10));
  CHECK(j["itl_attribution"]["prefill_interference_ms"].get<double>() == 0);
  // A constant cost model counts no FLOPs or bytes.
  CHECK(j["mfu_prefill"].get<double>() == 0);
  CHECK(j["classes"]["default"]["cost_usd"].get<double>() == Approx(prefill_usd + decode_usd));
  CHECK(j["pools"]["main"]["replicas"].size() == 1);
}

TEST_CASE("goodput: a request meets its SLOs only when its TTFT and every gap are within them", "[metrics][slo]") {
  // TTFT 10 ms <= 15 ms and every gap 10 ms <= 10 ms: both requests meet them. The run lasts
  // from the first arrival to the last token: 1 s + 50 ms.
  const auto met = run_summary("slo-met");
  CHECK(met["slo_met"].get<long>() == 2);
  CHECK(met["slo_attainment"].get<double>() == 1);
  CHECK(met["goodput"].get<double>() == Approx(2 / 1.05));
  CHECK(met["classes"]["default"]["slo_attainment"].get<double>() == 1);
  CHECK(met["slo_attainment_mean_itl"].get<double>() == 1);
  CHECK(met["goodput_mean_itl"].get<double>() == Approx(2 / 1.05));
  // A 9 ms ITL objective fails every request (by its longest gap and by its mean gap);
  // a 5 ms TTFT objective too.
  const auto itl = run_summary("slo-itl", " --set workload.0.slo.itl=9ms");
  CHECK(itl["slo_met"].get<long>() == 0);
  CHECK(itl["goodput"].get<double>() == 0);
  CHECK(itl["slo_attainment_mean_itl"].get<double>() == 0);
  const auto ttft = run_summary("slo-ttft", " --set workload.0.slo.ttft=5ms");
  CHECK(ttft["slo_attainment"].get<double>() == 0);
}

TEST_CASE("utilisation: prefill is compute-heavy and decode bandwidth-heavy under the roofline", "[metrics][cost]") {
  TempDir dir("mfu");
  const auto r = run_cli("run scenarios/prefix-caching.yaml --quiet --out " + dir.path.string() +
                         " --set stop.requests=200");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  const double mfu_p = j["mfu_prefill"], mfu_d = j["mfu_decode"], mbu_p = j["mbu_prefill"], mbu_d = j["mbu_decode"];
  INFO("mfu prefill " << mfu_p << " decode " << mfu_d << "; mbu prefill " << mbu_p << " decode " << mbu_d);
  CHECK(mfu_p > 0.2);
  CHECK(mfu_p < 1);
  CHECK(mfu_d < mfu_p / 5);
  CHECK(mbu_d > 0.2);
  CHECK(mbu_d < 1);
  CHECK(mbu_d > mbu_p);
  // Per replica: both replicas listed with their own hit rates, summing to the pool's.
  const auto& reps = j["pools"]["main"]["replicas"];
  REQUIRE(reps.size() == 2);
  long cached = 0, input = 0;
  for (const auto& rep : reps) {
    cached += rep["cached_input_tokens"].get<long>();
    input += rep["total_input_tokens"].get<long>();
  }
  CHECK(cached == j["pools"]["main"]["cached_input_tokens"].get<long>());
  CHECK(input == j["pools"]["main"]["total_input_tokens"].get<long>());
  CHECK(j["prefill_time_saved_s"].get<double>() > 0);
  CHECK(j["cost_per_1m_cached_input_tokens"].get<double>() > 0);
  CHECK(j["cost_per_1m_cached_input_tokens"].get<double>() < j["cost_per_1m_input_tokens"].get<double>());
}

}  // namespace cost_goodput_test
