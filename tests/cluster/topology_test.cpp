// Topology paths on small graphs, the DGX H100 preset, and transfers sharing links.
#include <catch2/catch.hpp>

#include "sim/cluster/kv_transfer_network.h"
#include "sim/cluster/topology.h"
#include "sim/core/errors.h"

namespace topology_test {

using namespace servesim;

namespace {

// a -(100 GB/s 1 us)- b -(10 GB/s 1 us)- c   and   a -(400 GB/s 4 us)- d -(400 GB/s 1 us)- c
struct Diamond {
  Topology t;
  int a, b, c, d, lonely;
  Diamond() {
    a = t.add_node("a", "gpu");
    b = t.add_node("b", "switch");
    c = t.add_node("c", "gpu");
    d = t.add_node("d", "switch");
    lonely = t.add_node("lonely", "gpu");
    t.add_link(a, b, 100e9, 1000);
    t.add_link(b, c, 10e9, 1000);
    t.add_link(a, d, 400e9, 4000);
    t.add_link(d, c, 400e9, 1000);
  }
};

}  // namespace

TEST_CASE("a path takes the lowest total latency and its bandwidth is the slowest link on it", "[cluster][topology]") {
  Diamond g;
  const auto p = g.t.path(g.a, g.c);
  REQUIRE(p.has_value());
  CHECK(p->edges.size() == 2);      // a-b-c: 2 us, not a-d-c: 5 us
  CHECK(p->latency_ns == 2000);
  CHECK(p->bottleneck_bytes_per_s == 10e9);
  const auto back = g.t.path(g.c, g.a);  // the reverse direction is its own pair of edges
  REQUIRE(back.has_value());
  CHECK(back->latency_ns == 2000);
  CHECK(back->edges != p->edges);
  CHECK_FALSE(g.t.path(g.a, g.lonely).has_value());
  CHECK(g.t.path(g.a, g.a)->edges.empty());
  CHECK(g.t.gpus() == std::vector{g.a, g.c, g.lonely});
}

TEST_CASE("of two paths with equal latency the one with fewer hops is taken", "[cluster][topology]") {
  Topology t;
  const int a = t.add_node("a", "gpu"), m1 = t.add_node("m1", "switch"), m2 = t.add_node("m2", "switch"),
            z = t.add_node("z", "gpu");
  t.add_link(a, m1, 1e9, 1000);
  t.add_link(m1, m2, 1e9, 0);
  t.add_link(m2, z, 1e9, 1000);
  t.add_link(a, z, 5e9, 2000);
  const auto p = t.path(a, z);
  CHECK(p->edges.size() == 1);
  CHECK(p->bottleneck_bytes_per_s == 5e9);
}

TEST_CASE("the DGX H100 preset joins GPUs of a machine over NVLink and machines over 400 Gb/s InfiniBand", "[cluster][topology]") {
  TopologySpec spec;
  spec.preset = "dgx-h100";
  spec.preset_nodes = 2;
  const Topology t = build_topology(spec, 16);
  REQUIRE(t.gpus().size() == 16);
  const auto same = t.path(t.gpus()[0], t.gpus()[7]);
  CHECK(same->bottleneck_bytes_per_s == 450e9);  // 900 GB/s bidirectional
  CHECK(same->latency_ns == 1000);
  const auto across = t.path(t.gpus()[0], t.gpus()[8]);
  CHECK(across->bottleneck_bytes_per_s == 50e9);  // 400 Gb/s
  CHECK(across->latency_ns == 500 + 1000 + 1000 + 500);
  CHECK(across->edges.size() == 4);  // gpu - nic - ib switch - nic - gpu
  // Sized automatically: 9 GPUs need 2 machines; asking for more GPUs than declared fails.
  spec.preset_nodes = 0;
  CHECK(build_topology(spec, 9).gpus().size() == 16);
  spec.preset_nodes = 1;
  CHECK_THROWS_AS(build_topology(spec, 9), ConfigError);
}

TEST_CASE("a lone transfer takes latency plus bytes over the bottleneck and two sharing a link take twice as long", "[cluster][topology][network]") {
  Diamond g;
  Simulator sim;
  KvTransferNetwork net(sim, g.t);
  std::vector<Tick> done;
  auto record = [&] { done.push_back(sim.now()); };
  // 1 GB over a-b-c: 10 GB/s bottleneck -> 100 ms, + 2 us.
  net.start(g.a, g.c, 1e9, record);
  sim.run();
  REQUIRE(done.size() == 1);
  CHECK(done[0] == 100 * kNsPerMs + 2000);
  // Two at once on the same path share the 10 GB/s: 200 ms each.
  done.clear();
  const Tick t0 = sim.now();
  net.start(g.a, g.c, 1e9, record);
  net.start(g.a, g.c, 1e9, record);
  sim.run();
  REQUIRE(done.size() == 2);
  CHECK(done[0] - t0 == 200 * kNsPerMs + 2000);
  CHECK(done[1] - t0 == 200 * kNsPerMs + 2000);
  // Opposite directions use different edges: no sharing.
  done.clear();
  const Tick t1 = sim.now();
  net.start(g.a, g.c, 1e9, record);
  net.start(g.c, g.a, 1e9, record);
  sim.run();
  CHECK(done == std::vector{t1 + 100 * kNsPerMs + 2000, t1 + 100 * kNsPerMs + 2000});
}

TEST_CASE("a transfer that joins halfway shares the link until the first one leaves", "[cluster][topology][network]") {
  Diamond g;
  Simulator sim;
  KvTransferNetwork net(sim, g.t);
  Tick first = 0, second = 0;
  net.start(g.a, g.c, 1e9, [&] { first = sim.now(); });
  sim.schedule_at(50 * kNsPerMs, [&] { net.start(g.a, g.c, 1e9, [&] { second = sim.now(); }); });
  sim.run();
  // 0-50 ms: first alone, 0.5 GB sent. Then 5 GB/s each: the first's last 0.5 GB take
  // 100 ms (ends 150 ms) while the second sends 0.5 GB; its other 0.5 GB alone: 50 ms.
  CHECK(first == 150 * kNsPerMs + 2000);
  CHECK(second == 200 * kNsPerMs + 2000);
}

TEST_CASE("max-min fair sharing gives a flow the bandwidth others leave unused", "[cluster][topology][network]") {
  // x -> hub at 10 GB/s; y -> hub at 10 GB/s; hub -> z at 15 GB/s. Flows x->z and y->z
  // share hub->z fairly: 7.5 GB/s each. A third flow x->hub halves x's uplink: x->z and
  // x->hub get 5 each, and y->z takes the 10 left on hub->z.
  Topology t;
  const int x = t.add_node("x", "gpu"), y = t.add_node("y", "gpu"), hub = t.add_node("hub", "switch"),
            z = t.add_node("z", "gpu");
  t.add_link(x, hub, 10e9, 0);
  t.add_link(y, hub, 10e9, 0);
  t.add_link(hub, z, 15e9, 0);
  Simulator sim;
  KvTransferNetwork net(sim, t);
  Tick xz = 0, yz = 0, xh = 0;
  net.start(x, z, 0.5e9, [&] { xz = sim.now(); });
  net.start(y, z, 1e9, [&] { yz = sim.now(); });
  net.start(x, hub, 0.5e9, [&] { xh = sim.now(); });
  sim.run();
  // 0-100 ms: x->z 5, x->hub 5, y->z 10 GB/s: x->z and x->hub (0.5 GB each) end at 100 ms,
  // y->z has sent 1 GB by then too.
  CHECK(xz == 100 * kNsPerMs);
  CHECK(xh == 100 * kNsPerMs);
  CHECK(yz == 100 * kNsPerMs);
}

}  // namespace topology_test
