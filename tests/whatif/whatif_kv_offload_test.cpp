// The what-if library (docs/what-if.md): "is CPU KV offload worth it for this trace?" on
// the Mooncake conversation trace, with replicas whose HBM holds far less than the trace's
// reusable prefixes.
#include <filesystem>
#include <fstream>

#include "sim/cluster/engine_setup.h"
#include "sim/engine/prefix_cache_replay.h"
#include "sim/workload/prefix_units.h"
#include "whatif/whatif_util.h"

namespace whatif_kv_offload_test {

using namespace servesim;
using namespace servesim::whatif;

namespace {

constexpr int kRequests = 2000;

// The prefix hit rate of one unbounded cache that sees every request (the trace's first
// kRequests rows): no placement of tiers or replicas can hit more.
double unbounded_hit_rate() {
  const std::string trace = std::string(SERVESIM_SOURCE_DIR) + "/data/traces/mooncake_fast25_conversation_trace.jsonl";
  const auto head = std::filesystem::temp_directory_path() / "servesim-whatif-15-head.jsonl";
  {
    std::ifstream in(trace);
    std::ofstream out(head);
    std::string line;
    for (int i = 0; i < kRequests && std::getline(in, line); ++i) out << line << '\n';
  }
  const double rate = replay_prefix_cache(read_prefix_units(head.string(), "mooncake"), kUnlimitedCacheTokens).hit_ratio;
  std::filesystem::remove(head);
  return rate;
}

}  // namespace

TEST_CASE("what-if 15: a CPU KV tier raises the hit rate toward an unbounded cache's and cuts TTFT - disk adds on top",
          "[whatif]") {
  const std::string f = "whatif-15-kv-offload.yaml";
  const std::string n = "stop.requests=" + std::to_string(kRequests);
  const std::string k = "cluster.pools.0.engine.kv_offload.";
  const RunResult hbm = run_scenario(f, {n});
  const RunResult cpu = run_scenario(f, {n, k + "cpu_gib=64"});
  const RunResult disk = run_scenario(f, {n, k + "cpu_gib=64", k + "disk_gib=1000", k + "disk_gb_s=7"});
  for (const RunResult* r : {&hbm, &cpu, &disk}) REQUIRE(r->completed == kRequests);
  const double bound = unbounded_hit_rate();
  const double hit_hbm = hbm.summary.overall.get("prefix_cache_hit_rate");
  const double hit_cpu = cpu.summary.overall.get("prefix_cache_hit_rate");
  const double hit_disk = disk.summary.overall.get("prefix_cache_hit_rate");
  const double ttft_hbm = hbm.summary.overall.get("mean_ttft_ms");
  const double ttft_cpu = cpu.summary.overall.get("mean_ttft_ms");
  const double ttft_disk = disk.summary.overall.get("mean_ttft_ms");
  INFO("hit rate: HBM only " << hit_hbm << ", + 64 GiB CPU " << hit_cpu << ", + 1 TB disk " << hit_disk
                             << ", unbounded " << bound << "; mean TTFT " << ttft_hbm << " / " << ttft_cpu << " / "
                             << ttft_disk << " ms");
  // HBM alone hits a small part of what could be hit (the trace's turns come back after
  // their prefixes were evicted); each tier recovers more, never more than the bound.
  CHECK(hit_hbm < 0.4 * bound);
  CHECK(hit_cpu > 1.5 * hit_hbm);
  CHECK(hit_disk > 1.1 * hit_cpu);
  CHECK(hit_disk <= bound);
  // Loading back beats recomputing: TTFT falls with each tier.
  CHECK(ttft_cpu < 0.97 * ttft_hbm);
  CHECK(ttft_disk < ttft_cpu);
  // The tiers' shares add up to the hit rate, and only the run with a disk has disk hits.
  const auto tier = [](const RunResult& r, const char* field) { return object_field(r.summary.overall, "kv_tiers", field); };
  CHECK(tier(cpu, "hbm_hit_rate") + tier(cpu, "cpu_hit_rate") + tier(cpu, "disk_hit_rate") == Approx(hit_cpu));
  CHECK(tier(cpu, "disk_hit_rate") == 0);
  CHECK(tier(disk, "disk_hit_rate") > 0);
  CHECK(tier(cpu, "mean_kv_load_ms") > 0);
  // Bytes moved: every tier hit was loaded once (no preemptions here), 131,072 bytes of
  // Llama-3.1-8B KV a token; evictions stored many more than came back.
  const double hit_tokens = tier(disk, "cpu_hit_tokens") + tier(disk, "disk_hit_tokens");
  CHECK(tier(disk, "loaded_gb") == Approx(hit_tokens * 131072 * 1e-9).epsilon(0.01));
  CHECK(tier(disk, "stored_gb") > tier(disk, "loaded_gb"));
  // Without tiers the summary has no kv_tiers object (its fields are as they always were).
  for (const auto& group : hbm.summary.overall.objects) CHECK(group.name != "kv_tiers");
}

TEST_CASE("what-if 15: validate names the tiers' sizes in tokens", "[whatif]") {
  const Scenario s = load_scenario(scenario_path("whatif-15-kv-offload.yaml"),
                                   {"cluster.pools.0.engine.kv_offload.cpu_gib=64",
                                    "cluster.pools.0.engine.kv_offload.disk_gib=1000",
                                    "cluster.pools.0.engine.kv_offload.disk_gb_s=7"});
  // Llama-3.1-8B's KV: 32 layers x 8 KV heads x 128 dims x (K, V) x 2 bytes = 131,072
  // bytes a token; 64 GiB hold 524,288 tokens, 1,000 GiB 8,192,000.
  const std::string line = kv_cache_report(s.cluster.pools[0], "cluster.pools.0");
  CHECK_THAT(line, Catch::Contains("KV tiers: CPU 524288 tokens, disk 8192000 tokens per replica"));
}

TEST_CASE("what-if 15: a shared store on a topology node is priced by the GPUs' paths to it", "[whatif][kv_tiers]") {
  // Four tp-1 replicas (GPUs g0..g3) reach the store node through a switch. With every path
  // at 25 GB/s and no latency, each GPU moves its replica's whole KV (tp 1) at 25 GB/s:
  // exactly network_gb_s: 25, so the two runs agree in every figure. With 2 ms of latency on
  // the store's link every step that loads pays 2 ms more, and the mean load rises.
  const std::string f = "whatif-15-kv-offload.yaml";
  const std::string n = "stop.requests=600";
  const std::string k = "cluster.pools.0.engine.kv_offload.";
  const auto topology = [](const std::string& store_latency) {
    return "cluster.topology={nodes: [{name: g0, kind: gpu}, {name: g1, kind: gpu}, {name: g2, kind: gpu}, "
           "{name: g3, kind: gpu}, {name: sw, kind: switch}, {name: kvstore, kind: host}], links: ["
           "{a: g0, b: sw, bandwidth: 25GB/s}, {a: g1, b: sw, bandwidth: 25GB/s}, {a: g2, b: sw, bandwidth: 25GB/s}, "
           "{a: g3, b: sw, bandwidth: 25GB/s}, {a: sw, b: kvstore, bandwidth: 400GB/s, latency: " +
           store_latency + "}]}";
  };
  const RunResult by_bandwidth = run_scenario(f, {n, k + "cpu_gib=16", k + "shared=true", k + "network_gb_s=25"});
  const RunResult by_path =
      run_scenario(f, {n, k + "cpu_gib=16", k + "shared=true", k + "store_node=kvstore", topology("0s")});
  const RunResult slow =
      run_scenario(f, {n, k + "cpu_gib=16", k + "shared=true", k + "store_node=kvstore", topology("2ms")});
  const auto tier = [](const RunResult& r, const char* field) { return object_field(r.summary.overall, "kv_tiers", field); };
  REQUIRE(tier(by_bandwidth, "cpu_hit_rate") > 0);
  CHECK(tier(by_path, "cpu_hit_rate") == tier(by_bandwidth, "cpu_hit_rate"));
  CHECK(tier(by_path, "mean_kv_load_ms") == tier(by_bandwidth, "mean_kv_load_ms"));
  CHECK(by_path.summary.overall.get("mean_ttft_ms") == by_bandwidth.summary.overall.get("mean_ttft_ms"));
  const double load = tier(by_path, "mean_kv_load_ms"), slow_load = tier(slow, "mean_kv_load_ms");
  INFO("mean load per request: " << load << " ms at 0 latency, " << slow_load << " ms at 2 ms");
  CHECK(slow_load > load);
}

}  // namespace whatif_kv_offload_test
