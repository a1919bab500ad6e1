// The saturated resource is judged per pool (sim/cluster/saturation_verdict.h,
// name_binding_pool): with prefill and decode in separate pools, the pool that runs short
// names the limit and the resource, and each pool block carries its own. Summed over the
// whole run, a decode pool's memory-bound steps can outweigh a starved prefill pool's
// compute-bound ones and name memory bandwidth where only more FLOP/s would serve more.
//
// Llama-3-8B (8.03e9 parameters, 16 GB of bf16 weights) on H100 SXMs (989 TFLOP/s dense
// bf16, 3.35 TB/s), priced by the roofline, so every bound below is a floor on a step's
// time: a step reads every weight once (>= 16e9 B / 3.35e12 B/s = 4.8 ms) and does 2 FLOPs
// per parameter per token (an n-token prefill >= 2 x 8.03e9 x n / 989e12 s).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"

namespace saturation_pool_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

std::string split(double rate_per_s, long input, long output, int prefill_replicas, int decode_replicas,
                  int decode_max_num_seqs) {
  std::ostringstream s;
  s << "name: split\nseed: 11\nstop: {requests: 600}\n"
       "workload:\n  - class: chat\n    arrival: {process: poisson, rate: " << rate_per_s << "}\n"
       "    input: {fixed: " << input << "}\n    output: {fixed: " << output << "}\n"
       "cluster:\n  pools:\n"
       "    - name: prefill\n      role: prefill\n      decode_pool: decode\n      replicas: " << prefill_replicas
    << "\n      model: llama-3-8b\n      hardware: h100-sxm\n      cost_model: roofline\n"
       "      engine: {policy: chunked-prefill, max_batched_tokens: 8192, prefix_cache: false}\n"
       "    - name: decode\n      role: decode\n      replicas: " << decode_replicas
    << "\n      model: llama-3-8b\n      hardware: h100-sxm\n      cost_model: roofline\n"
       "      engine: {policy: chunked-prefill, max_num_seqs: " << decode_max_num_seqs << ", prefix_cache: false}\n"
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

TEST_CASE("saturation per pool: a starved prefill pool names compute and the prefill pool", "[saturation][disagg]") {
  TempDir dir("sat-pool-prefill");
  // One prefill replica, 8,000-token prompts: each takes >= 2 x 8.03e9 x 8000 / 989e12 =
  // 0.13 s, so it computes at most 7.7 prompts a second; 20 a second arrive. The two decode
  // replicas see at most those 7.7 a second, 100 tokens each: a step of up to 256
  // sequences costs little more than its 4.8 ms weight read, so they could take tens of
  // times that. The prefill pool runs short, of compute (8,000-token GEMMs are compute-bound).
  // Over the run the decode replicas decode whenever a request is there (each holds one for
  // 100 steps, ~0.5 s, and ~3.8 a second arrive): their memory-bound time (~2 x the run)
  // exceeds the prefill replica's compute-bound time (~1 x the run), so the totals would
  // have named memory bandwidth.
  const Ran r = run(dir, "prefill", split(20, 8000, 100, 1, 2, 256));
  const json& s = r.summary;
  INFO(s.dump());
  CHECK(s["saturated"] == 1);
  CHECK(s["saturated_pool"] == "prefill");
  CHECK(s["saturated_resource"] == "compute");
  CHECK(s["pools"]["prefill"]["saturated_resource"] == "compute");
  CHECK(s["pools"]["prefill"]["saturated_by"] == s["saturated_by"]);
  CHECK(s["pools"]["decode"]["saturated_resource"] == "none");
  CHECK(s["pools"]["decode"]["saturated_by"] == "none");
  CHECK(r.console.find("saturated: arrivals outpaced the cluster (pool prefill bound by ") != std::string::npos);
  CHECK(r.console.find("; short of compute)") != std::string::npos);
}

TEST_CASE("saturation per pool: a starved decode pool names its own limit and memory bandwidth",
          "[saturation][disagg]") {
  TempDir dir("sat-pool-decode");
  // One decode replica that runs 8 sequences at once, 1,000 output tokens each: a step
  // costs >= 4.8 ms, so it finishes at most 8 / (1000 x 4.8 ms) = 1.67 requests a second;
  // 4 a second arrive. Its steps of 8 decodes do 2 x 8.03e9 x 8 = 1.3e11 FLOPs, 0.13 ms at
  // peak against the 4.8 ms weight read: memory-bound, and the KV cache (tens of GB left
  // after the weights at 128 KiB a token: hundreds of thousands of tokens) holds 8 x 1,200
  // tokens with room to spare, so the slots bind: max_num_seqs, short of memory bandwidth. The prefill replica
  // computes 200-token prompts in ~10 ms each (>= 100 a second): it keeps up.
  const Ran r = run(dir, "decode", split(4, 200, 1000, 1, 1, 8));
  const json& s = r.summary;
  INFO(s.dump());
  CHECK(s["saturated"] == 1);
  CHECK(s["saturated_pool"] == "decode");
  CHECK(s["saturated_by"] == "max_num_seqs");
  CHECK(s["saturated_resource"] == "memory_bandwidth");
  CHECK(s["pools"]["decode"]["saturated_by"] == "max_num_seqs");
  CHECK(s["pools"]["decode"]["saturated_resource"] == "memory_bandwidth");
  CHECK(s["pools"]["prefill"]["saturated_resource"] == "none");
  CHECK(r.console.find("(pool decode bound by max_num_seqs; short of memory_bandwidth)") != std::string::npos);
}

TEST_CASE("saturation per pool: one pool names itself and keeps the run's figures", "[saturation]") {
  TempDir dir("sat-pool-one");
  // The KV-bound replica of saturation_rule_test.cpp in a one-pool scenario, overloaded by
  // more than the noise: 15 req/s against the 10 it serves.
  std::ostringstream yaml;
  yaml << "name: one\nseed: 5\nstop: {requests: 2000}\n"
          "workload:\n  - class: default\n    arrival: {process: poisson, rate: 15}\n"
          "    input: {fixed: 1000}\n    output: {fixed: 100}\n"
          "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n"
          "      engine: {policy: chunked-prefill, max_num_seqs: 1024, max_batched_tokens: 8192,\n"
          "               kv_cache_tokens: 11040, block_size: 16, kv_admission: reserve-full, prefix_cache: false}\n"
          "      cost_model: {constant: {step: 10ms}}\n"
          "outputs: {requests_csv: false}\n";
  const Ran r = run(dir, "one", yaml.str());
  const json& s = r.summary;
  INFO(s.dump());
  CHECK(s["saturated"] == 1);
  CHECK(s["saturated_pool"] == "main");
  CHECK(s["saturated_by"] == "kv_cache");
  CHECK(s["saturated_resource"] == "kv_memory");
  CHECK(s["pools"]["main"]["saturated_by"] == "kv_cache");
  CHECK(s["pools"]["main"]["saturated_resource"] == "kv_memory");
  // One pool: the console line names no pool, as before.
  CHECK(r.console.find("(bound by kv_cache; short of kv_memory)") != std::string::npos);
}

TEST_CASE("saturation per pool: a search candidate's reason names the pool that ran short", "[saturation][disagg]") {
  TempDir dir("sat-pool-search");
  // The starved prefill pool above, as the one candidate of a search at its 20 req/s: the
  // run judged by capacity's and search's test (run_judgement.h) says which side ran short.
  const auto scenario = dir.write("prefill.yaml", split(20, 8000, 100, 1, 2, 256));
  const auto space = dir.write("space.yaml", "cluster.pools.1.replicas: [2]\n");
  const CliResult r = run_cli("search " + scenario.string() + " --space " + space.string() +
                              " --slo ttft_p99=1000s --out " + (dir.path / "o").string());
  INFO(r.output);
  CHECK(r.exit_code == 1);  // no candidate is feasible
  const json j = json::parse(read_file(dir.path / "o" / "search.json"));
  const std::string reason = j["rows"][0]["reason"].get<std::string>();
  INFO(reason);
  CHECK((reason.find("saturated by token_budget in pool prefill: ") == 0 ||
         reason.find("in pool prefill)") != std::string::npos));
}

}  // namespace saturation_pool_test
