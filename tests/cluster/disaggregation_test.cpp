// Prefill/decode disaggregation: the KV hand-over over the topology is a part of TTFT.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/cluster/cluster_test_util.h"

namespace disaggregation_test {

using namespace servesim;

namespace {

// Two GPUs joined through a switch: 100 GB/s and 2 us to it, 50 GB/s and 3 us from it.
TopologySpec two_gpus() {
  TopologySpec t;
  t.nodes = {{"gpu-a", "gpu"}, {"sw", "switch"}, {"gpu-b", "gpu"}};
  t.links = {{"gpu-a", "sw", 100e9, 2 * kNsPerUs}, {"sw", "gpu-b", 50e9, 3 * kNsPerUs}};
  return t;
}

ClusterConfig prefill_decode(std::optional<TopologySpec> topology, int replicas_each = 1) {
  ClusterConfig cluster;
  PoolConfig prefill = test::constant_pool("prefill", replicas_each, 10 * kNsPerMs);
  prefill.role = PoolRole::prefill;
  prefill.decode_pool = "decode";
  PoolConfig decode = test::constant_pool("decode", replicas_each, 10 * kNsPerMs);
  decode.role = PoolRole::decode;
  cluster.pools = {prefill, decode};
  cluster.topology = topology;
  return cluster;
}

// llama-3-8b KV per token: K and V x 32 layers x 8 KV heads x 128 dims x 2 bytes (bf16).
constexpr double kKvBytesPerToken = 2.0 * 32 * 8 * 128 * 2;

}  // namespace

TEST_CASE("a lone disaggregated request's TTFT is its prefill plus bytes over the bottleneck plus path latency", "[cluster][disaggregation]") {
  StopSpec stop;
  stop.requests = 1;
  Simulation sim(1, stop, {test::burst_class("chat", 1, 1000, 5)}, prefill_decode(two_gpus()));
  const RunResult r = sim.run();
  REQUIRE(r.completed == 1);
  // 1000 tokens x 131072 B = 131.072 MB over the 50 GB/s bottleneck: 2.62144 ms; latency
  // 2 + 3 us; the prefill step 10 ms.
  const double bytes = kKvBytesPerToken * 1000;
  CHECK(bytes == 131'072'000.0);
  const double transfer_ms = bytes / 50e9 * 1e3 + 0.005;
  const SummaryBlock& chat = test::class_block(r, "chat");
  CHECK(chat.get("mean_ttft_ms") == Approx(10.0 + transfer_ms).epsilon(1e-12));
  CHECK(chat.get("mean_kv_transfer_ms") == Approx(transfer_ms).epsilon(1e-12));
  // Then 4 decode steps of 10 ms on the decode replica; ITL 10 ms each.
  CHECK(chat.get("mean_e2el_ms") == Approx(10.0 + transfer_ms + 40.0).epsilon(1e-12));
  CHECK(chat.get("mean_itl_ms") == Approx(10.0).epsilon(1e-9));
  // The request is reported by the pool that finished it.
  for (const auto& [name, block] : r.summary.pools) CHECK(block.get("completed") == (name == "decode" ? 1 : 0));
}

TEST_CASE("on the default DGX H100 topology a hand-over between neighbouring GPUs crosses NVLink", "[cluster][disaggregation]") {
  StopSpec stop;
  stop.requests = 1;
  Simulation sim(1, stop, {test::burst_class("chat", 1, 1000, 2)}, prefill_decode(std::nullopt));
  REQUIRE(sim.topology() != nullptr);
  CHECK(sim.topology()->gpus().size() == 8);  // one machine holds both replicas
  const RunResult r = sim.run();
  REQUIRE(r.completed == 1);
  // node0/gpu0 -> NVSwitch -> node0/gpu1: 450 GB/s each way, 2 x 0.5 us. Rounded up to ns.
  const double transfer_ns = std::ceil(kKvBytesPerToken * 1000 / 450e9 * 1e9) + 1000;
  CHECK(test::class_block(r, "chat").get("mean_kv_transfer_ms") == Approx(transfer_ns * 1e-6).epsilon(1e-12));
}

TEST_CASE("a request whose output is one token never leaves its prefill pool", "[cluster][disaggregation]") {
  StopSpec stop;
  stop.requests = 3;
  Simulation sim(1, stop, {test::burst_class("chat", 1, 1000, 1)}, prefill_decode(two_gpus()));
  const RunResult r = sim.run();
  CHECK(r.completed == 3);
  CHECK(test::class_block(r, "chat").get("mean_kv_transfer_ms") == 0);
  CHECK(test::class_block(r, "chat").get("mean_ttft_ms") == Approx(10.0));
}

TEST_CASE("KV still on the wire when time runs out is reported unfinished and conserved", "[cluster][disaggregation]") {
  StopSpec stop;
  // The request arrives at 1 s; its prefill ends at 1.010 s and its KV needs 2.6 ms more.
  stop.time_ns = kNsPerSec + 11 * kNsPerMs;
  Simulation sim(1, stop, {test::burst_class("chat", 1, 1000, 5)}, prefill_decode(two_gpus()));
  const RunResult r = sim.run();
  CHECK(r.arrived == 1);
  CHECK(r.unfinished == 1);
  CHECK(r.arrived == r.completed + r.rejected + r.unfinished);
}

}  // namespace disaggregation_test
