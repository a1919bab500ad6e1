// One saturation rule for every run (sim/cluster/saturation_verdict.h), through the real
// binary: a run offered more than it serves says saturated, with the rate it served; a run
// too short to tell says that instead; and saturated_resource names what to buy, compute
// for compute-bound steps, KV memory for memory-bound steps whose batch the cache limits.
//
// The KV-bound set-up (as in saturation_limits_test.cpp): prompts of 1,000 tokens, 100
// output tokens, a constant 10 ms step, reserve-full admission and 11,040 KV tokens, so 10
// requests run at once, each for 100 steps = 1 s: the replica serves 10 req/s at most.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"
#include "cli/kv_bound_scenario.h"

namespace saturation_rule_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

// Llama-3-8B on one H100 SXM priced by the roofline.
std::string roofline(double rate_per_s, long requests, long input, long output, const std::string& engine_extra) {
  std::ostringstream s;
  s << "name: mix\nseed: 3\nstop: {requests: " << requests << "}\n"
       "workload:\n  - class: default\n    arrival: {process: poisson, rate: " << rate_per_s << "}\n"
       "    input: {fixed: " << input << "}\n    output: {fixed: " << output << "}\n"
       "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n"
       "      engine: {policy: chunked-prefill, max_num_seqs: 256, max_batched_tokens: 8192, prefix_cache: false"
    << engine_extra << "}\n      cost_model: roofline\n"
       "outputs: {requests_csv: false}\n";
  return s.str();
}

struct Ran {
  json summary;
  std::string console;
};

Ran run(const TempDir& dir, const std::string& name, const std::string& yaml) {
  const auto path = dir.write(name + ".yaml", yaml);
  const auto out = dir.path / name;
  const CliResult r = run_cli("run " + path.string() + " --out " + out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return {json::parse(read_file(out / "summary.json")), r.output};
}

}  // namespace

TEST_CASE("saturation rule: a run offered 11 req/s that serves 10 is saturated - by kv_cache - short of KV memory",
          "[saturation]") {
  TempDir dir("sat-rule-over");
  // The 90% case in small: 3,000 requests at 11 req/s against 10 req/s.
  const Ran r = run(dir, "over", kv_bound(11, 3000));
  const json& s = r.summary;
  INFO(s.dump());
  CHECK(s["saturated"] == 1);
  CHECK(s["too_short_to_judge"] == 0);
  // Over the second half of the arrivals (~136 s) the replica serves its 10 req/s; the
  // Poisson arrivals offer 11 give or take sqrt(1,500) / 1,500 = 2.6%.
  CHECK(s["sustained_served_rate"].get<double>() == Approx(10).epsilon(0.03));
  CHECK(s["sustained_offered_rate"].get<double>() == Approx(11).epsilon(0.08));
  CHECK(s["saturated_by"] == "kv_cache");
  // A constant step costs the same whatever its batch, so a bigger cache is more throughput.
  CHECK(s["saturated_resource"] == "kv_memory");
  CHECK(r.console.find("saturated: arrivals outpaced the cluster (bound by kv_cache; short of kv_memory)") !=
        std::string::npos);
}

TEST_CASE("saturation rule: a short run says it is too short to judge - a long one at half load is sustained",
          "[saturation]") {
  TempDir dir("sat-rule-short");
  // 100 requests at 5 req/s: a window of ~10 s, 50 arrivals, 1 s latency: the noise,
  // sqrt(2 x 5 x 1) / 50 = 6.3%, is more than the 5% tolerance, let alone a third of it.
  const Ran brief = run(dir, "brief", kv_bound(5, 100));
  INFO(brief.summary.dump());
  CHECK(brief.summary["saturated"] == 0);
  CHECK(brief.summary["too_short_to_judge"] == 1);
  CHECK(brief.summary["saturated_by"] == "none");
  CHECK(brief.summary["saturation_note"].get<std::string>().find("too short to judge a 5% shortfall") == 0);
  CHECK(brief.console.find("too short to judge whether the cluster kept up") != std::string::npos);
  // The length that would judge it: the note's stop.requests, at least twice the 100 asked.
  const auto at = brief.console.find("note: --set stop.requests=");
  REQUIRE(at != std::string::npos);
  const long suggested = std::stol(brief.console.substr(at + std::string("note: --set stop.requests=").size()));
  CHECK(suggested >= 200);
  // 2,000 requests: a window of ~200 s, 1,000 arrivals: sqrt(10) / 1,000 = 0.32%, 3 of
  // which fit in 5%. At half its capacity the replica serves what arrives.
  const Ran full = run(dir, "full", kv_bound(5, 2000));
  const json& s = full.summary;
  INFO(s.dump());
  CHECK(s["saturated"] == 0);
  CHECK(s["too_short_to_judge"] == 0);
  CHECK(s["saturation_note"] == "");
  CHECK(s["sustained_served_rate"].get<double>() == Approx(s["sustained_offered_rate"].get<double>()).epsilon(0.02));
  CHECK(s["sustained_offered_rate"].get<double>() == Approx(5).epsilon(0.1));
  CHECK(full.console.find("too short") == std::string::npos);
  // And the suggested length is long enough: judged, at the same half load.
  const Ran suggested_run = run(dir, "suggested", kv_bound(5, suggested));
  CHECK(suggested_run.summary["too_short_to_judge"] == 0);
  CHECK(suggested_run.summary["saturated"] == 0);
}

TEST_CASE("saturation rule: KV-bound compute-heavy prefill is short of compute - a KV-bound decode batch of KV memory",
          "[saturation]") {
  TempDir dir("sat-rule-resource");
  // The third case in small. 4,000-token prompts, 2 output tokens: a prompt is
  // 2 x 8e9 x 4,000 = 6.4e13 FLOPs, 65 ms at the H100's 989 TFLOP/s, against 16 GB of
  // weights read in 4.8 ms per step: the steps are compute-bound, and 40 req/s is more than
  // twice the ~15 req/s they allow. A KV cache of 12,000 tokens holds 3 prompts, so the
  // scheduler waits on it; yet doubling it only lets more prompts wait in steps whose time
  // grows with them: the rate served barely moves.
  const auto prefill = [&](const std::string& name, int kv_tokens) {
    return run(dir, name, roofline(40, 1500, 4000, 2, ", kv_cache_tokens: " + std::to_string(kv_tokens)));
  };
  const Ran small = prefill("prefill", 12000);
  INFO(small.summary.dump());
  CHECK(small.summary["saturated"] == 1);
  CHECK(small.summary["saturated_by"] == "kv_cache");
  CHECK(small.summary["saturated_resource"] == "compute");
  const Ran doubled = prefill("prefill-2x", 24000);
  INFO(doubled.summary.dump());
  CHECK(doubled.summary["saturated"] == 1);
  CHECK(doubled.summary["sustained_served_rate"].get<double>() ==
        Approx(small.summary["sustained_served_rate"].get<double>()).epsilon(0.05));
  // 100-token prompts, 500 output tokens, a KV cache of 4,800 tokens: 8 sequences of 600 at
  // most. A step of 8 decodes is 2 x 8e9 x 8 = 1.3e11 FLOPs (0.13 ms) against 4.8 ms of
  // weight reads: memory-bound, each request ~500 steps of ~5 ms = 2.5 s, so 8 at once
  // serve ~3 req/s, and 6 req/s saturates the cache. Twice the cache batches twice the
  // decodes into steps that cost about the same: the 6 req/s are then served.
  const auto decode = [&](const std::string& name, int kv_tokens) {
    return run(dir, name,
               roofline(6, 1500, 100, 500, ", kv_cache_tokens: " + std::to_string(kv_tokens) + ", block_size: 16"));
  };
  const Ran tight = decode("decode", 4800);
  INFO(tight.summary.dump());
  CHECK(tight.summary["saturated"] == 1);
  CHECK(tight.summary["saturated_by"] == "kv_cache");
  CHECK(tight.summary["saturated_resource"] == "kv_memory");
  const Ran roomy = decode("decode-2x", 9600);
  INFO(roomy.summary.dump());
  CHECK(roomy.summary["saturated"] == 0);
  CHECK(roomy.summary["sustained_served_rate"].get<double>() >
        1.3 * tight.summary["sustained_served_rate"].get<double>());
}

TEST_CASE("saturation rule: explain lengthens its runs - and lists apart the variants still too short to judge",
          "[saturation][explain]") {
  TempDir dir("sat-rule-explain");
  // 40 requests at 5 req/s: the noise alone asks for a run hundreds of times longer, more
  // than the 8x explain allows, so after lengthening to 320 requests no run can be judged:
  // none is ranked, each is listed apart with its served and offered rates.
  const auto path = dir.write("short.yaml", kv_bound(5, 40));
  const CliResult r = run_cli("explain " + path.string() + " --json --jobs 2 --out " + dir.path.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.output);
  CHECK(j["lengthened"] == "every run lengthened 8x to 320 requests, so each can be judged");
  CHECK(j["base_too_short"].get<std::string>().find("too short to judge a 5% shortfall") == 0);
  for (const auto& v : j["variants"]) {
    INFO(v["lever"]);
    CHECK(v["too_short_to_judge"] == (v["overloaded"] == false));
  }
  for (const auto& [field, m] : j["metrics"].items()) {
    INFO(field);
    for (const auto& entry : m["not_ranked"]) CHECK_FALSE(entry["because"].get<std::string>().empty());
    CHECK(m["ranking"].size() + m["not_ranked"].size() == j["variants"].size());
    CHECK(m["ranking"].empty());
    CHECK(m["owner"] == "none");
  }
}

}  // namespace saturation_rule_test
