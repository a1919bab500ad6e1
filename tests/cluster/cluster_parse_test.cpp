// The cluster keys added for routing staleness, admission, roles and topology: read from
// YAML, and bad values reported at their line and key.
#include <catch2/catch.hpp>

#include "scenario/scenario_fixture.h"
#include "scenario/scenario_load_error.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace cluster_parse_test {

using servesim::testing::ScenarioDir;
using servesim::testing::scenario_load_error;
using namespace servesim;

namespace {

// Lines 9.. are the cluster's own keys, filled in by each test.
std::string scenario(const std::string& cluster_tail, const std::string& pools = "") {
  return std::string(R"(workload:
  - class: chat
    arrival: {process: poisson, rate: 4}
    input: {fixed: 100}
    output: {fixed: 10}
stop: {requests: 100}
cluster:
  pools:
)") + (pools.empty() ? "    - {model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n" : pools) + cluster_tail;
}

const std::string kDisaggPools =
    "    - {name: p, role: prefill, decode_pool: d, model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n"
    "    - {name: d, role: decode, model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n";

}  // namespace

TEST_CASE("cluster keys: router staleness admission roles and a declared topology are read", "[cluster][scenario]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write("s.yaml", scenario(
      "  router: {name: power-of-two, staleness: 50ms}\n"
      "  admission: {chat: {queue_limit: 7, timeout: 2s}}\n"
      "  topology:\n"
      "    nodes: [{name: a, kind: gpu}, {name: b, kind: gpu}]\n"
      "    links: [{a: a, b: b, bandwidth: 400Gb/s, latency: 2us}]\n",
      kDisaggPools)));
  CHECK(s.cluster.router == "power-of-two");
  CHECK(s.cluster.router_staleness_ns == 50 * kNsPerMs);
  REQUIRE(s.cluster.admission.size() == 1);
  CHECK(*s.cluster.admission[0].queue_limit == 7);
  CHECK(*s.cluster.admission[0].timeout_ns == 2 * kNsPerSec);
  CHECK(s.cluster.pools[0].role == PoolRole::prefill);
  CHECK(s.cluster.pools[0].decode_pool == "d");
  CHECK(s.cluster.pools[1].role == PoolRole::decode);
  REQUIRE(s.cluster.topology.has_value());
  CHECK(s.cluster.topology->links[0].bandwidth_bytes_per_s == 50e9);
  CHECK(s.cluster.topology->links[0].latency_ns == 2000);
}

TEST_CASE("cluster keys: router as a plain name still works with live load", "[cluster][scenario]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write("s.yaml", scenario("  router: round-robin\n")));
  CHECK(s.cluster.router == "round-robin");
  CHECK(s.cluster.router_staleness_ns == 0);
}

TEST_CASE("cluster keys: bad values name their line and key", "[cluster][scenario]") {
  struct Bad {
    std::string tail, pools;
    int line;
    std::string key, words;
  };
  const std::vector<Bad> cases = {
      {"  router: {name: least-outstandin}\n", "", 10, "cluster.router.name", "did you mean 'least-outstanding'"},
      {"  admission: {chatt: {queue_limit: 1}}\n", "", 10, "cluster.admission.chatt", "did you mean 'chat'"},
      {"  admission: {chat: {timeout: 0s}}\n", "", 10, "cluster.admission.chat.timeout", "above 0"},
      {"  topology: dgx-a100\n", kDisaggPools, 11, "cluster.topology", "unknown topology preset"},
      {"  topology: {preset: dgx-h100, nodes: 0}\n", kDisaggPools, 11, "cluster.topology.nodes", ">= 1"},
      {"  topology:\n    nodes: [{name: a, kind: gpu}, {name: b, kind: gpu}]\n"
       "    links: [{a: a, b: b, bandwidth: 400 furlongs}]\n",
       kDisaggPools, 13, "cluster.topology.links.0.bandwidth", "unit"},
      {"  topology:\n    nodes: [{name: a, kind: gpu}, {name: b, kind: gpu}]\n"
       "    links: [{a: a, b: c, bandwidth: 1GB/s}]\n",
       kDisaggPools, 13, "cluster.topology.links.0.b", "unknown node 'c'"},
      {"  topology:\n    nodes: [{name: a, kind: gpu}]\n    links: []\n", kDisaggPools, 12, "cluster.topology",
       "the pools need 2"},
      {"", "    - {name: p, role: prefill, model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n", 9,
       "cluster.pools.0.role", "needs decode_pool"},
      {"", "    - {name: p, role: prefill, decode_pool: q, model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n", 9,
       "cluster.pools.0.decode_pool", "no pool named 'q'"},
      {"", "    - {name: p, role: chef, model: tiny-model.yaml, hardware: tiny-gpu.yaml}\n", 9,
       "cluster.pools.0.role", "unknown pool role 'chef'"},
  };
  for (const Bad& c : cases) {
    const ConfigError e = scenario_load_error(scenario(c.tail, c.pools));
    INFO(c.tail << c.pools << " -> " << e.what());
    CHECK(e.line() == c.line);
    CHECK(e.key() == c.key);
    CHECK(std::string(e.message()).find(c.words) != std::string::npos);
  }
}

}  // namespace cluster_parse_test
