// How a replica reaches a KV store on a topology node (sim/cluster/kv_store_reach.h): the
// slowest of its GPUs' paths, worked out by hand on a small network.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/cluster/kv_store_reach.h"
#include "sim/cluster/topology_spec.h"

namespace kv_store_reach_test {

using namespace servesim;

TEST_CASE("kv store reach: the least bottleneck and the greatest latency of the GPUs' paths", "[cluster][kv_tiers]") {
  // a --25 GB/s, 2 us-- sw --100 GB/s, 3 us-- store;  b --10 GB/s, 1 us-- sw;  c alone.
  Topology t;
  const int a = t.add_node("a", "gpu"), b = t.add_node("b", "gpu"), c = t.add_node("c", "gpu");
  const int sw = t.add_node("sw", "switch"), store = t.add_node("store", "host");
  t.add_link(a, sw, 25e9, 2000);
  t.add_link(b, sw, 10e9, 1000);
  t.add_link(sw, store, 100e9, 3000);
  REQUIRE(t.gpus() == std::vector<int>{a, b, c});  // GPU indices 0, 1, 2
  const auto one = reach_store(t, /*first_gpu=*/0, /*gpus=*/1, store);
  REQUIRE(one);
  CHECK(one->bytes_per_s == 25e9);
  CHECK(one->latency_ns == 5000);
  const auto two = reach_store(t, 0, 2, store);
  REQUIRE(two);
  CHECK(two->bytes_per_s == 10e9);  // b's link
  CHECK(two->latency_ns == 5000);   // a's path: 2 + 3 us (b's is 4 us)
  CHECK_FALSE(reach_store(t, 1, 2, store));  // b and c: c has no link
  CHECK_FALSE(reach_store(t, 0, 1, a));      // a store on the GPU itself is not reached over links
}

TEST_CASE("kv store reach: on the dgx-h100 preset a GPU reaches the fabric through its own NIC", "[cluster][kv_tiers]") {
  // GPU -> NIC: 64 GB/s, 0.5 us; NIC -> ib-switch: 50 GB/s, 1 us (docs/cluster.md). Through
  // the NVSwitch and another GPU's NIC would add 1 us: the lowest-latency path is its own.
  TopologySpec spec;
  spec.preset = "dgx-h100";
  const Topology t = build_topology(spec, 8);
  const std::optional<int> fabric = t.find("ib-switch");
  REQUIRE(fabric);
  const auto reach = reach_store(t, 0, 2, *fabric);  // a tp-2 replica on GPUs 0 and 1
  REQUIRE(reach);
  CHECK(reach->bytes_per_s == 50e9);
  CHECK(reach->latency_ns == 1500);
}

}  // namespace kv_store_reach_test
