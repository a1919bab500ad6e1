// Load routers on hand-made replica states, and routers fed stale load snapshots.
#include <catch2/catch.hpp>
#include <algorithm>
#include <random>

#include "sim/cluster/argmin_tree.h"
#include "sim/cluster/pool.h"
#include "tests/cluster/cluster_test_util.h"

namespace routers_test {

using namespace servesim;

namespace {

std::unique_ptr<Router> router(const std::string& name) { return make_router_registry().find(name)->factory(7, "main"); }

ReplicaSnapshot snap(int index, std::int64_t outstanding, double kv_usage) {
  ReplicaSnapshot s;
  s.index = index;
  s.outstanding = outstanding;
  s.kv_usage = kv_usage;
  return s;
}

class Quiet final : public ReplicaListener {
 public:
  void on_request_done(RequestState&, Tick) override { ++done; }
  int done = 0;
};

}  // namespace

TEST_CASE("least-outstanding picks the replica with fewest requests and the lowest index on a tie", "[cluster][router]") {
  auto r = router("least-outstanding");
  const std::vector<ReplicaSnapshot> s = {snap(0, 5, 0.1), snap(1, 2, 0.9), snap(2, 7, 0.0), snap(3, 2, 0.5)};
  CHECK(r->route({}, s).target == 1);
}

TEST_CASE("least-outstanding told of every snapshot change picks what a scan of the snapshots picks", "[cluster][router]") {
  // The pool's path: the router keeps an ArgminTree from snapshot_changed calls. 1, 7 and
  // 1,024 replicas (a power of two and not), loads from a small range so that ties are
  // common; each pick is checked against a fresh router, which scans.
  std::mt19937_64 rng(42);
  for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1024}}) {
    auto kept = router("least-outstanding");
    std::vector<ReplicaSnapshot> s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(snap(static_cast<int>(i), 0, 0));
    for (std::size_t i = 0; i < n; ++i) kept->snapshot_changed(s, static_cast<int>(i));
    for (int round = 0; round < 3000; ++round) {
      const std::size_t i = rng() % n;
      s[i].outstanding = static_cast<std::int64_t>(rng() % 4);
      kept->snapshot_changed(s, static_cast<int>(i));
      const int want = router("least-outstanding")->route({}, s).target;
      REQUIRE(kept->route({}, s).target == want);
      if (n > 1) REQUIRE(s[static_cast<std::size_t>(want)].outstanding == std::min_element(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.outstanding < b.outstanding; })->outstanding);
    }
  }
}

TEST_CASE("argmin tree: the first index of the smallest key under random changes", "[cluster][router]") {
  std::mt19937_64 rng(7);
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}, std::size_t{100}}) {
    ArgminTree<std::int64_t> tree(n, 3);
    std::vector<std::int64_t> keys(n, 3);
    REQUIRE(tree.argmin() == 0);
    for (int round = 0; round < 2000; ++round) {
      const std::size_t i = rng() % n;
      keys[i] = static_cast<std::int64_t>(rng() % 5) - 2;
      tree.set(i, keys[i]);
      const auto first_min = std::min_element(keys.begin(), keys.end()) - keys.begin();
      REQUIRE(tree.argmin() == first_min);
      REQUIRE(tree.key(i) == keys[i]);
    }
  }
}

TEST_CASE("least-kv picks the lowest KV usage and breaks ties by outstanding requests", "[cluster][router]") {
  auto r = router("least-kv");
  CHECK(r->route({}, std::vector{snap(0, 1, 0.4), snap(1, 9, 0.2), snap(2, 0, 0.3)}).target == 1);
  CHECK(r->route({}, std::vector{snap(0, 3, 0.2), snap(1, 1, 0.2), snap(2, 0, 0.3)}).target == 1);
}

TEST_CASE("round-robin visits every replica in turn whatever their load", "[cluster][router]") {
  auto r = router("round-robin");
  const std::vector<ReplicaSnapshot> s = {snap(0, 9, 1), snap(1, 0, 0), snap(2, 0, 0)};
  std::vector<int> got;
  for (int i = 0; i < 6; ++i) got.push_back(r->route({}, s).target);
  CHECK(got == std::vector{0, 1, 2, 0, 1, 2});
}

TEST_CASE("power-of-two never picks the busier of two replicas and spreads over both", "[cluster][router]") {
  auto r = router("power-of-two");
  // Two replicas: each draw picks two indexes; only when both are 0 can replica 0 win.
  const std::vector<ReplicaSnapshot> s = {snap(0, 10, 0), snap(1, 0, 0)};
  int zero = 0;
  for (int i = 0; i < 4000; ++i) zero += r->route({}, s).target == 0;
  // P(both draws are replica 0) = 1/4: 1000 expected, sd sqrt(4000 * 3/16) = 27.4.
  CHECK(zero > 1000 - 5 * 28);
  CHECK(zero < 1000 + 5 * 28);
}

TEST_CASE("random spreads requests evenly over replicas", "[cluster][router]") {
  auto r = router("random");
  const std::vector<ReplicaSnapshot> s = {snap(0, 0, 0), snap(1, 0, 0), snap(2, 0, 0), snap(3, 0, 0)};
  std::vector<int> count(4);
  for (int i = 0; i < 8000; ++i) ++count[static_cast<std::size_t>(r->route({}, s).target)];
  // 2000 each expected, sd sqrt(8000 * 1/4 * 3/4) = 38.7.
  for (int c : count) CHECK(std::abs(c - 2000) < 5 * 39);
}

TEST_CASE("with stale load least-outstanding herds a burst onto one replica until the next refresh", "[cluster][router][staleness]") {
  for (const Tick staleness_ns : {Tick{0}, 50 * kNsPerMs}) {
    Simulator sim;
    MetricsRecorder metrics({"default"}, {"main"});
    Quiet listener;
    const PoolConfig config = test::constant_pool("main", 4, 10 * kNsPerMs);
    Pool pool(sim, 0, config, "least-outstanding", 1, metrics, listener, staleness_ns);
    // Every step its own event, so that events count steps (decode runs join them).
    for (auto& replica : pool.replicas()) replica->keep_no_decode_runs();
    std::vector<RequestState> requests(7);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      requests[i].spec.id = i;
      requests[i].spec.prompt_tokens = 100;
      requests[i].spec.output_tokens = 20;  // 20 steps of 10 ms: busy until 200 ms
    }
    // A burst of 4 at t = 0, another of 3 at t = 60 ms (after one refresh at 50 ms).
    for (std::size_t i = 0; i < 4; ++i) pool.submit(requests[i]);
    sim.run(60 * kNsPerMs);
    for (std::size_t i = 4; i < 7; ++i) pool.submit(requests[i]);
    std::vector<int> placed;
    for (const auto& r : requests) placed.push_back(r.replica_index);
    if (staleness_ns == 0) {
      // Live load: the first burst spreads 0,1,2,3; the second goes to the three with 1.
      CHECK(placed == std::vector{0, 1, 2, 3, 0, 1, 2});
    } else {
      // The snapshot of t = 0 shows four idle replicas: all four land on replica 0. The
      // refresh at 50 ms shows 4,0,0,0: the next burst all lands on replica 1.
      CHECK(placed == std::vector{0, 0, 0, 0, 1, 1, 1});
      CHECK(pool.router_view()[0].outstanding == 4);
      CHECK(pool.router_view()[1].outstanding == 0);
    }
    const std::uint64_t events_before = sim.events_run();
    sim.run();  // the refresh stops once the pool is idle, so the run ends
    CHECK(listener.done == 7);
    if (staleness_ns > 0) {
      // A submit to an idle replica starts a step at once with that request alone; the
      // rest of its burst joins at the next step, 10 ms later, and ends 10 ms later. After
      // t = 60 ms: replica 0's step ends at 70..210 ms (15), replica 1's at 70..270 ms
      // (21), refreshes at 100, 150, 200, 250 and 300 ms (5); the one at 300 finds every
      // replica idle and arms no other.
      CHECK(sim.events_run() - events_before == 15 + 21 + 5);
      CHECK(sim.now() == 300 * kNsPerMs);
    }
  }
}

}  // namespace routers_test
