#pragma once
// The tiers of one replica's prefix cache below HBM: CPU memory, then local disk
// (engine_config.h, KvOffloadConfig; docs/prefix-caching.md, "KV tiers"). They hold block
// hashes only: which bytes sit where decides no timing, only which prefixes can come back
// and from how far.
//   - A block with a source's hash evicted from HBM is stored in the CPU tier (write-back
//     on eviction), unless the tier already holds it (then it is only touched: vLLM's
//     connector skips blocks already offloaded). A private hash (a request's own, which
//     only its recompute could hit) is not stored.
//   - A tier full evicts its least recently used hash: the CPU tier's moves down to disk,
//     the disk's is gone.
//   - A lookup that finds a hash touches it (most recently used) and leaves it where it
//     is: the block is copied up to HBM, not moved. A hash sits in one tier at a time: a
//     block on disk that HBM evicts again moves up to CPU.
// Each tier is an LRU list threaded by index through one slot array that both tiers share,
// with an open-addressing index (tier_hash_index.h) from hash to slot:
// O(1) per operation and no allocation once the tiers are full (every eviction from HBM is
// a store: a node-based list and map would allocate and free one per block of every
// prompt). A slot carries its tier, so a hash that moves from CPU to disk keeps its slot
// and its index entry: a demotion relinks one slot and touches no index (stores that demote
// were most of a large disk tier's cache misses).
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/core/time.h"
#include "sim/core/zeroed_array.h"
#include "sim/engine/tier_hash_index.h"

namespace servesim {

// What moving KV between HBM and the tiers costs one replica. Every GPU of the replica
// moves its share of each token's KV over its own host link, at the same time; a block
// from disk is read by the node (all the replica's bytes, at the disk's bandwidth) and
// then crosses the host links, one after the other (LMCache stages disk reads in CPU
// memory).
struct KvTierLink {
  double kv_bytes_per_token_per_gpu = 0;
  double host_link_bytes_per_s = 0;  // per GPU (the hardware's host_link_bandwidth_gb_s)
  double kv_bytes_per_token = 0;     // the whole replica's
  double disk_bytes_per_s = 0;       // the tier's spec
  // LMCache's layer-wise pipelining: layer i loads while layer i - 1 computes, so a load
  // delays the step only by what outlasts the step's kernels. Otherwise (vLLM's
  // OffloadingConnector) the load completes before the step computes.
  bool layerwise = false;
  // The link's latency, paid once by a transfer (a store reached over the topology's
  // links; 0 for the host links, whose microseconds vanish against a block's bytes).
  Tick latency_ns = 0;
  // The time to move `link_tokens` over the host links, `disk_tokens` of which come from disk.
  Tick transfer_ns(std::int64_t link_tokens, std::int64_t disk_tokens) const {
    double s = host_link_bytes_per_s > 0 ? static_cast<double>(link_tokens) * kv_bytes_per_token_per_gpu / host_link_bytes_per_s : 0;
    if (disk_tokens > 0 && disk_bytes_per_s > 0) s += static_cast<double>(disk_tokens) * kv_bytes_per_token / disk_bytes_per_s;
    return static_cast<Tick>(std::llround(s * 1e9)) + (link_tokens > 0 ? latency_ns : 0);
  }
};

class KvTiers {
 public:
  enum Tier : int { kNone = -1, kCpu = 0, kDisk = 1 };
  static constexpr int kTiers = 2;

  // REQUIRES: both >= 0, their sum below 2^30.
  KvTiers(std::int64_t cpu_blocks, std::int64_t disk_blocks);

  // The tier holding `hash`, touched, or kNone.
  Tier find(std::uint64_t hash);
  // The same without touching it (a router's question).
  Tier peek(std::uint64_t hash) const {
    const std::int32_t s = slot_of(hash);
    return s < 0 ? kNone : static_cast<Tier>(slots_[static_cast<std::size_t>(s)].tier);
  }
  // Starts loading what a lookup of `hash` reads first (a hint for loops over a prefix).
  void prefetch(std::uint64_t hash) const { index_.prefetch(hash); }
  // `hash` leaves HBM: stored in the CPU tier (pushing its LRU hash down; straight to disk
  // without a CPU tier) unless the CPU tier holds it already; a block on disk moves up.
  // Returns whether it was written (store traffic over the host link; moves from CPU to
  // disk happen off the GPU's path and cost no step time).
  bool store(std::uint64_t hash);

  std::int64_t capacity_blocks(Tier t) const { return tiers_[t].capacity; }
  std::int64_t used_blocks(Tier t) const { return tiers_[t].used; }
  // Blocks written into each tier since the start (CPU: from HBM; disk: from CPU).
  std::int64_t stored_blocks(Tier t) const { return tiers_[t].stored; }

 private:
  static constexpr std::int32_t kNil = -1;
  static constexpr int kSlotBits = 30;  // slots are numbered below 2^30 (`older` has 31 bits, signed)
  struct Slot {  // set in full when a hash takes it (all zero bytes until then)
    std::uint64_t hash;
    std::int32_t newer;  // neighbours in its tier's LRU order
    std::int32_t older : 31;
    std::uint32_t tier : 1;
  };
  static_assert(sizeof(Slot) == 16, "a slot is a quarter of a cache line");
  struct Lru {
    std::int64_t capacity = 0;
    std::int64_t used = 0;
    std::int64_t stored = 0;
    std::int32_t newest = kNil, oldest = kNil;
  };
  std::int32_t slot_of(std::uint64_t hash) const {
    return index_.find(hash, [this](std::int32_t s) { return slots_[static_cast<std::size_t>(s)].hash; });
  }
  void unlink(Lru& tier, std::int32_t s);
  void push_newest(Lru& tier, std::int32_t s);
  void touch(Lru& tier, std::int32_t s) {
    if (s == tier.newest) return;
    unlink(tier, s);
    push_newest(tier, s);
  }
  // A slot for a hash entering the tiers: one left by a hash that dropped out, or a new one.
  std::int32_t new_slot();
  // Makes room in tier t for one more block: its least recently used block moves down a
  // tier (relinked, same slot and index entry) or, from the last tier, out.
  void make_room(int t);
  // The first tier at or below t that has any capacity, or kTiers.
  int first_tier_from(int t) const {
    while (t < kTiers && tiers_[t].capacity == 0) ++t;
    return t;
  }

  Lru tiers_[kTiers];
  // Both tiers' slots, one per block of capacity: address space only until used (a slot
  // is taken from the front, or from a hash that left the tiers), on huge pages.
  ZeroedArray<Slot> slots_;
  std::int32_t slots_used_ = 0;           // slots [0, slots_used_) have held a hash
  std::vector<std::int32_t> free_slots_;  // of hashes that left the tiers
  // Every hash in the tiers, each in one: one lookup finds it, whichever tier holds it.
  TierHashIndex index_;
};

}  // namespace servesim
