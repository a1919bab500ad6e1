// KV tiers below HBM (sim/engine/kv_tiers.h): the tiers' LRU order traced by hand, and a
// replica whose evicted prefix comes back from the CPU tier instead of being recomputed,
// with the load priced over the host link exactly.
#include <catch2/catch.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/engine/kv_tiers.h"
#include "sim/engine/replica.h"
#include "sim/metrics/replica_metrics.h"
#include "sim/report/requests_csv_writer.h"
#include "engine/policy_harness.h"

namespace kv_tiers_test {

using namespace servesim;

TEST_CASE("kv tiers: evicted hashes go to CPU - then disk - then out - least recently used first", "[kv_tiers]") {
  KvTiers tiers(/*cpu_blocks=*/2, /*disk_blocks=*/1);
  CHECK(tiers.store(1));
  CHECK(tiers.store(2));
  CHECK(tiers.used_blocks(KvTiers::kCpu) == 2);
  CHECK(tiers.find(1) == KvTiers::kCpu);  // 1 is now the most recently used
  CHECK(tiers.store(3));                  // CPU full: its LRU (2) goes down to disk
  CHECK(tiers.peek(2) == KvTiers::kDisk);
  CHECK(tiers.peek(1) == KvTiers::kCpu);
  CHECK(tiers.peek(3) == KvTiers::kCpu);
  CHECK(tiers.store(4));  // CPU's LRU now is 1 (3 came after it): 1 to disk, 2 out
  CHECK(tiers.peek(1) == KvTiers::kDisk);
  CHECK(tiers.peek(2) == KvTiers::kNone);
  CHECK_FALSE(tiers.store(4));  // already offloaded: no write
  CHECK(tiers.stored_blocks(KvTiers::kCpu) == 4);
  CHECK(tiers.stored_blocks(KvTiers::kDisk) == 2);
  // A hit leaves the block where it is: found on disk, it stays there.
  CHECK(tiers.find(1) == KvTiers::kDisk);
  CHECK(tiers.used_blocks(KvTiers::kDisk) == 1);
}

TEST_CASE("kv tiers: peek does not touch - find does", "[kv_tiers]") {
  KvTiers tiers(2, 0);
  tiers.store(1);
  tiers.store(2);
  CHECK(tiers.peek(1) == KvTiers::kCpu);  // 1 stays least recently used
  tiers.store(3);                         // and goes (no disk tier)
  CHECK(tiers.peek(1) == KvTiers::kNone);
  CHECK(tiers.find(2) == KvTiers::kCpu);  // 2 becomes most recently used
  tiers.store(4);                         // 3 goes
  CHECK(tiers.peek(3) == KvTiers::kNone);
  CHECK(tiers.peek(2) == KvTiers::kCpu);
}

TEST_CASE("kv tiers: a disk tier alone takes HBM's evictions directly", "[kv_tiers]") {
  KvTiers tiers(0, 2);
  CHECK(tiers.store(7));
  CHECK(tiers.peek(7) == KvTiers::kDisk);
  CHECK(tiers.stored_blocks(KvTiers::kCpu) == 0);
}

TEST_CASE("kv tier link: host-link and disk times from the bytes per token", "[kv_tiers]") {
  KvTierLink link;
  link.kv_bytes_per_token_per_gpu = 65536;  // a TP-2 replica's share of 131072 B
  link.kv_bytes_per_token = 131072;
  link.host_link_bytes_per_s = 50e9;
  link.disk_bytes_per_s = 5e9;
  // 1,000 tokens over the links: 65.536 MB / 50 GB/s = 1,310,720 ns; 200 of them from
  // disk first: 26.2144 MB / 5 GB/s = 5,242,880 ns.
  CHECK(link.transfer_ns(1000, 0) == 1310720);
  CHECK(link.transfer_ns(1000, 200) == 1310720 + 5242880);
}

namespace {

// One replica (1 us per step plus 10 ns per token computed, so a load shows as exactly its
// own time), prefix caching on, 6 blocks of 4 tokens, a CPU tier of 8 blocks; each
// token's KV weighs 1,000 bytes on a 1 GB/s host link, so a loaded token costs 1 us.
struct TierHarness {
  Simulator sim;
  MetricsRecorder metrics{{"default"}, {"main"}};
  ReplicaMetrics measured{metrics, 0};
  testing::DoneLog listener;
  EngineConfig config;
  std::unique_ptr<Replica> replica;
  std::vector<std::unique_ptr<RequestState>> states;
  std::vector<Tick> step_ns;  // each step's duration, in order

  explicit TierHarness(bool layerwise = false) {
    config.max_batched_tokens = 64;
    config.max_num_seqs = 4;
    config.block_size = 4;
    config.prefix_cache = true;
    const auto reg = make_policy_registry();
    replica = std::make_unique<Replica>(sim, 0, 0, config, 6, reg.find("chunked-prefill")->factory(),
                                        std::make_shared<testing::AffineStepCost>(1000, 10), measured, listener, 0);
    KvTierLink link;
    link.kv_bytes_per_token_per_gpu = link.kv_bytes_per_token = 1000;
    link.host_link_bytes_per_s = 1e9;
    link.layerwise = layerwise;
    replica->set_kv_tiers(std::make_shared<KvTiers>(8, 0), link, {1.0, 0.0});
    replica->add_step_observer([this](int, Tick, const StepPlan&, const StepCost& c) { step_ns.push_back(c.total_ns); });
  }
  RequestState& submit_at(Tick at_ns, std::uint64_t id, std::int64_t prompt, std::vector<std::uint64_t> hashes) {
    states.push_back(std::make_unique<RequestState>());
    RequestState& r = *states.back();
    r.spec.id = id;
    r.spec.prompt_tokens = prompt;
    r.spec.output_tokens = 1;
    r.spec.block_hashes = std::move(hashes);
    sim.schedule_at(at_ns, [this, &r] {
      r.spec.arrival_ns = sim.now();
      replica->submit(r);
    });
    return r;
  }
};

}  // namespace

TEST_CASE("kv tier link: a store's latency is paid once per transfer over the link", "[kv_tiers]") {
  KvTierLink link;
  link.kv_bytes_per_token_per_gpu = 1000;
  link.kv_bytes_per_token = 1000;
  link.host_link_bytes_per_s = 1e9;  // 1 us per token
  link.latency_ns = 5000;
  CHECK(link.transfer_ns(100, 0) == 100000 + 5000);
  CHECK(link.transfer_ns(0, 0) == 0);  // nothing moved, no latency
}

TEST_CASE("kv tiers: a prefix evicted from HBM comes back from the CPU tier at the host link's price",
          "[kv_tiers]") {
  TierHarness h;
  // A: 17 tokens, four full blocks hashed 1..4 (the 17th token needs a fifth block).
  RequestState& a = h.submit_at(0, 1, 17, {1, 2, 3, 4});
  // B (1 ms later): 21 tokens with other hashes, five blocks of the six: A's four cached
  // blocks are evicted (HBM holds 6) and stored in the CPU tier.
  RequestState& b = h.submit_at(1'000'000, 2, 21, {11, 12, 13, 14, 15});
  // C (2 ms): A's prompt again. HBM misses (evicted), the CPU tier holds all four blocks:
  // 16 tokens are loaded, 1 is computed.
  RequestState& c = h.submit_at(2'000'000, 3, 17, {1, 2, 3, 4});
  h.sim.run();
  CHECK(a.cached_prompt_tokens == 0);
  CHECK(b.cached_prompt_tokens == 0);
  CHECK(c.cached_prompt_tokens == 16);
  CHECK(c.tier_hit_tokens[KvTiers::kCpu] == 16);
  CHECK(h.replica->kv().tiers()->stored_blocks(KvTiers::kCpu) >= 4);
  // Steps: A (17 tokens), B (21), C (1 token computed): 1,000 + 10 x tokens each, and C's
  // also loads 16 tokens (16 us) plus the stores its link waited for: B's allocation
  // evicted A's 4 blocks (16 tokens, 16 us).
  REQUIRE(h.step_ns.size() == 3);
  CHECK(h.step_ns[0] == 1000 + 170);
  CHECK(h.step_ns[1] == 1000 + 210);
  CHECK(h.step_ns[2] == 1000 + 10 + 16'000 + 16'000);
  // The load is its own TTFT part.
  CHECK(c.acct.ttft.kv_load_ns == 32'000);
  CHECK(c.acct.ttft.total() == c.first_token_ns - c.spec.arrival_ns);
  CHECK(h.replica->stats().kv_loaded_tokens == 16);
}

TEST_CASE("kv tiers: LMCache's layer-wise loads hide under the step's kernels", "[kv_tiers]") {
  TierHarness h(/*layerwise=*/true);
  h.submit_at(0, 1, 17, {1, 2, 3, 4});
  h.submit_at(1'000'000, 2, 21, {11, 12, 13, 14, 15});
  RequestState& c = h.submit_at(2'000'000, 3, 17, {1, 2, 3, 4});
  h.sim.run();
  REQUIRE(h.step_ns.size() == 3);
  // 32 us of transfers, 1,010 ns of them under the kernels.
  CHECK(h.step_ns[2] == 32'000);
  CHECK(c.acct.ttft.kv_load_ns == 32'000 - 1010);
}

TEST_CASE("kv tiers: a router sees a tier's tokens at its weight", "[kv_tiers]") {
  TierHarness h;
  h.submit_at(0, 1, 17, {1, 2, 3, 4});
  h.submit_at(1'000'000, 2, 21, {11, 12, 13, 14, 15});
  h.sim.run();
  RequestSpec again;
  again.prompt_tokens = 17;
  again.block_hashes = {1, 2, 3, 4};
  CHECK(h.replica->kv().cached_prefix_tokens(again) == 16);  // weight 1 for the CPU tier
}

TEST_CASE("kv tiers: requests.csv gains the load part and the tier hits only when asked", "[kv_tiers]") {
  RequestRecord r;
  r.outcome = Outcome::completed;
  r.arrival_ns = 0;
  r.first_token_ns = 3'000'000;
  r.finish_ns = 4'000'000;
  r.acct.ttft.kv_load_ns = 1'500'000;
  r.tier_hit_tokens[0] = 48;
  r.tier_hit_tokens[1] = 16;
  std::ostringstream with, without;
  RequestsCsvWriter(with, {"c"}, {"p"}, /*kv_tiers=*/true).write(r);
  RequestsCsvWriter(without, {"c"}, {"p"}).write(r);
  std::string header, row;
  std::istringstream in(with.str());
  std::getline(in, header);
  std::getline(in, row);
  CHECK(header == std::string(RequestsCsvWriter::kHeader) + ",ttft_kv_load_ms,cpu_hit_tokens,disk_hit_tokens");
  CHECK(row.size() > 12);
  CHECK(row.substr(row.size() - 10) == ",1.5,48,16");
  CHECK(without.str().substr(0, without.str().find('\n')) == RequestsCsvWriter::kHeader);
}

TEST_CASE("kv tiers: a store shared by two replicas serves one's evicted prefix to the other", "[kv_tiers]") {
  Simulator sim;
  MetricsRecorder metrics{{"default"}, {"main"}};
  ReplicaMetrics measured{metrics, 0};
  testing::DoneLog listener;
  EngineConfig config;
  config.max_batched_tokens = 64;
  config.block_size = 4;
  config.prefix_cache = true;
  const auto reg = make_policy_registry();
  const auto store = std::make_shared<KvTiers>(8, 0);
  KvTierLink link;
  link.kv_bytes_per_token_per_gpu = link.kv_bytes_per_token = 1000;
  link.host_link_bytes_per_s = 1e9;  // here the network to the store
  std::vector<std::unique_ptr<Replica>> replicas;
  for (int i = 0; i < 2; ++i) {
    replicas.push_back(std::make_unique<Replica>(sim, 0, i, config, 6, reg.find("chunked-prefill")->factory(),
                                                 std::make_shared<testing::AffineStepCost>(1000, 10), measured,
                                                 listener, 0));
    replicas.back()->set_kv_tiers(store, link, {1.0, 0.0});
  }
  std::vector<std::unique_ptr<RequestState>> states;
  const auto submit_at = [&](Tick at, int replica, std::uint64_t id, std::int64_t prompt,
                             std::vector<std::uint64_t> hashes) -> RequestState& {
    states.push_back(std::make_unique<RequestState>());
    RequestState& r = *states.back();
    r.spec.id = id;
    r.spec.prompt_tokens = prompt;
    r.spec.output_tokens = 1;
    r.spec.block_hashes = std::move(hashes);
    sim.schedule_at(at, [&sim, &r, rep = replicas[static_cast<std::size_t>(replica)].get()] {
      r.spec.arrival_ns = sim.now();
      rep->submit(r);
    });
    return r;
  };
  // A on replica 0, then B there evicts A's four blocks into the store; C on replica 1,
  // which never saw A, finds them there.
  submit_at(0, 0, 1, 17, {1, 2, 3, 4});
  submit_at(1'000'000, 0, 2, 21, {11, 12, 13, 14, 15});
  RequestState& c = submit_at(2'000'000, 1, 3, 17, {1, 2, 3, 4});
  sim.run();
  CHECK(c.tier_hit_tokens[KvTiers::kCpu] == 16);
  CHECK(replicas[1]->kv().tiers() == replicas[0]->kv().tiers());
  // Replica 1 loads 16 tokens (16 us) and waits for no store of its own.
  CHECK(c.acct.ttft.kv_load_ns == 16'000);
}

}  // namespace kv_tiers_test
