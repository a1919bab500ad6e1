// `capacity` accepts only a rate its run sustains: the served rate over the second half of
// the arrivals within --sustain-tolerance of the offered one (sim/metrics/sustained_rate.h),
// a run too short to tell that lengthened or reported, and an infeasible answer that
// names why and what changes it.
//
// The cluster: one replica whose KV cache holds 10 requests (11,040 tokens, 1,100 each with
// reserve-full admission) while max_num_seqs allows 1,024. A request takes its prefill
// step plus 99 decode steps of 10 ms = 1 s, so the replica serves 10 req/s at most, by
// construction.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"
#include "cli/kv_bound_scenario.h"

namespace capacity_sustained_test {

using namespace servesim;
using namespace servesim::testing;
using nlohmann::json;

TEST_CASE("capacity: a short run is lengthened until it can tell the 10 req/s the replica serves", "[capacity]") {
  TempDir dir("capacity-short");
  // 200 requests: the end-of-run backlog test alone accepted 11.09 req/s here (the run at
  // it served 9.7 req/s); 1,000 requests, 11.02.
  const auto scenario = dir.write("kv.yaml", kv_bound(5, 200));
  const auto r = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  const double found = j["capacity"].get<double>();
  // Accepted only if served within 5% of offered: at most 10 / 0.95 = 10.53 req/s, plus the
  // measurement's own noise (3 deviations fit inside the 5%).
  CHECK(found > 9.0);
  CHECK(found < 10.6);
  bool lengthened = false;
  for (const auto& t : j["trials"]) {
    if (!t["lengthened"].is_null()) lengthened = true;
    if (t["feasible"] == true) CHECK(t["sustained_rate"].get<double>() >= 0.95 * t["offered_rate"].get<double>());
  }
  CHECK(lengthened);
  CHECK(j["sustain_tolerance"].get<double>() == Approx(0.05));
}

TEST_CASE("capacity: a run that cannot be made long enough is reported as too short", "[capacity]") {
  TempDir dir("capacity-too-short");
  // A 0.001% tolerance over 200 requests would need the run millions of times longer, at
  // any rate the search halves down to.
  const auto scenario = dir.write("kv.yaml", kv_bound(5, 200));
  const auto r = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --sustain-tolerance 0.001% --max-rate 4");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("too short to judge a 0.001% shortfall") != std::string::npos);
  CHECK(r.output.find("run lengthened 16x to 3200 requests") != std::string::npos);
  CHECK(r.output.find("lengthen it") != std::string::npos);
}

TEST_CASE("capacity: rejected requests are named with their reason and the options that change them", "[capacity]") {
  TempDir dir("capacity-rejected");
  // Prompts uniform in 1,000..12,000 tokens: with 100 out, those over 8,092 (37%) exceed
  // Llama-3-8B's 8,192-token context and are rejected at every rate.
  const auto scenario = dir.write("kv.yaml", kv_bound(5, 400, "{uniform: [1000, 12000]}"));
  const auto r = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --max-rate 4");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("exceeds_max_context: its prompt plus output is longer than the model's context") !=
        std::string::npos);
  CHECK(r.output.find("--max-rejected 0% allows none of them") != std::string::npos);
  // The rejected requests are not counted as load the cluster failed to serve.
  CHECK(r.output.find("not sustained") == std::string::npos);
  // Allowing them, the same search finds a rate.
  const auto allowed = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --max-rate 4 --max-rejected 50% --quiet");
  INFO(allowed.output);
  CHECK(allowed.exit_code == 0);
}

TEST_CASE("capacity: Llama-3-70B on 4 H100s bound by its KV cache - the rate found is one a 10x longer run sustains",
          "[capacity]") {
  // The vLLM preset allows 1,024 sequences, so slots never bind: a 2,000-token shared prompt
  // with prefix caching off fills the KV cache first. Capacity from 3,000-request runs must be
  // within 5% of the throughput a 30,000-request run at that rate achieves.
  TempDir dir("capacity-70b");
  const auto scenario = dir.write("kv70.yaml",
                                  "name: kv70\nseed: 1\nstop: {requests: 3000}\n"
                                  "workload:\n  - class: chat\n    arrival: {process: poisson, rate: 4}\n"
                                  "    prompt:\n      - {shared: system, tokens: 2000}\n"
                                  "      - {unique: true, tokens: {lognormal: {median: 300, sigma: 0.6}, max: 2000}}\n"
                                  "    output: {lognormal: {median: 250, sigma: 0.6}, max: 1000}\n"
                                  "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      tp: 4\n"
                                  "      model: llama-3-70b\n      hardware: h100-sxm\n"
                                  "      engine: {preset: vllm, prefix_cache: false}\n"
                                  "outputs: {requests_csv: false}\n");
  const auto r = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double rate = json::parse(r.output)["capacity"].get<double>();
  const auto out = (dir.path / "long").string();
  std::ostringstream rate_text;
  rate_text.precision(17);
  rate_text << rate;
  REQUIRE(run_cli("run " + scenario.string() + " --quiet --set stop.requests=30000 --set workload.0.arrival.rate=" +
                  rate_text.str() + " -o " + out)
              .exit_code == 0);
  const json s = json::parse(read_file(out + "/summary.json"));
  const double served = s["request_throughput"].get<double>();
  INFO("capacity " << rate << " req/s; the 30,000-request run at it served " << served << " req/s, bound by "
                   << s["saturated_by"]);
  CHECK(std::abs(rate - served) / served < 0.05);
  // Measured: capacity 4.375, served 4.39 and sustained (with the queue's own spread in the
  // noise; before it, 4.5625 and 4.47, 2.1% short, the KV cache binding).
}

TEST_CASE("capacity: rejections that come at any load stop the search at its first trial", "[capacity]") {
  TempDir dir("capacity-any-load");
  // Prompts uniform on [1000, 9000] with 100-token answers against Llama-3-8B's 8,192-token
  // context: every prompt above 8,092 tokens is rejected whatever the rate, (9000 - 8092) /
  // 8000 = 11.4% of them (binomial: 22.7 +/- 4.5 of 200), so halving the rate (ten more
  // runs) could never pass at 0%. At 0.5 req/s nothing else fails.
  const auto scenario = dir.write("long.yaml", kv_bound(0.5, 200, "{uniform: [1000, 9000]}"));
  const auto r = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --json");
  INFO(r.output);
  CHECK(r.exit_code != 0);
  const json j = json::parse(r.output.substr(r.output.find('{')));
  REQUIRE(j["trials"].size() == 1);
  CHECK(j["fails_at_any_load"] == true);
  const std::string reason = j["trials"][0]["reason"].get<std::string>();
  CHECK(reason.rfind("16 of 200 requests rejected (16 exceeds_max_context", 0) == 0);  // 8%: 1.5 sd low
  const auto text = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h");
  CHECK(text.output.find("no feasible value: 0.5 req/s fails by rejections that come at any load") !=
        std::string::npos);

  // Allowing that share, the same search goes on as usual and finds a rate.
  const auto allowed = run_cli("capacity " + scenario.string() + " --slo e2el_p99=1h --max-rejected 20% --json");
  INFO(allowed.output);
  REQUIRE(allowed.exit_code == 0);
  const json a = json::parse(allowed.output);
  CHECK(a["capacity"].get<double>() > 0);
  CHECK_FALSE(a.contains("fails_at_any_load"));
}

TEST_CASE("capacity and search: --max-rejected above 100% is refused - it is a share of the requests",
          "[capacity]") {
  for (const std::string command : {"capacity scenarios/quickstart.yaml",
                                    "search scenarios/quickstart.yaml --space scenarios/spaces/quickstart.yaml"}) {
    const auto r = run_cli(command + " --slo ttft_p99=1s --max-rejected 200%");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("reject_share: must be from 0% to 100% (a share of the requests), got 200%") != std::string::npos);
  }
}

}  // namespace capacity_sustained_test
