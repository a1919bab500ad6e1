#include "sim/engine/kv_tiers.h"

#include "sim/core/assert.h"

namespace servesim {

KvTiers::KvTiers(std::int64_t cpu_blocks, std::int64_t disk_blocks) {
  SS_ASSERT(cpu_blocks >= 0 && disk_blocks >= 0, "a KV tier cannot hold a negative number of blocks");
  SS_ASSERT(cpu_blocks < (std::int64_t{1} << kSlotBits) && disk_blocks < (std::int64_t{1} << kSlotBits),
            "a KV tier of 2^30 blocks or more");
  tiers_[kCpu].capacity = cpu_blocks;
  tiers_[kDisk].capacity = disk_blocks;
}

void KvTiers::Lru::unlink(std::int32_t s) {
  Slot& k = slots[static_cast<std::size_t>(s)];
  if (k.newer != kNil) slots[static_cast<std::size_t>(k.newer)].older = k.older;
  else newest = k.older;
  if (k.older != kNil) slots[static_cast<std::size_t>(k.older)].newer = k.newer;
  else oldest = k.newer;
  k.newer = k.older = kNil;
}

void KvTiers::Lru::push_newest(std::int32_t s) {
  Slot& k = slots[static_cast<std::size_t>(s)];
  k.newer = kNil;
  k.older = newest;
  if (newest != kNil) slots[static_cast<std::size_t>(newest)].newer = s;
  newest = s;
  if (oldest == kNil) oldest = s;
}

KvTiers::Tier KvTiers::find(std::uint64_t hash) {
  const std::int32_t v = index_.find(hash);
  if (v < 0) return kNone;
  tiers_[tier_of(v)].touch(slot_of(v));
  return tier_of(v);
}

bool KvTiers::store(std::uint64_t hash) {
  if (const std::int32_t v = index_.find(hash); v >= 0) {
    Lru& tier = tiers_[tier_of(v)];
    if (tier_of(v) == kCpu) {  // offloaded already: nothing to write
      tier.touch(slot_of(v));
      return false;
    }
    // On disk: the eviction writes it to CPU memory, and it leaves the disk.
    tier.unlink(slot_of(v));
    tier.free_slots.push_back(slot_of(v));
    --tier.used;
    index_.erase(hash);
  }
  insert(kCpu, hash);
  return true;  // over the host link, to CPU memory or through it to disk
}

void KvTiers::insert(int t, std::uint64_t hash) {
  for (; t < kTiers; ++t) {
    Lru& tier = tiers_[t];
    if (tier.capacity == 0) continue;  // no such tier: straight to the next
    std::int32_t s;
    std::uint64_t pushed_out = 0;
    const bool full = tier.used == tier.capacity;
    if (full) {  // the least recently used leaves for the next tier, or out
      s = tier.oldest;
      pushed_out = tier.slots[static_cast<std::size_t>(s)].hash;
      tier.unlink(s);
      index_.erase(pushed_out);
    } else if (!tier.free_slots.empty()) {
      s = tier.free_slots.back();
      tier.free_slots.pop_back();
      ++tier.used;
    } else {
      s = static_cast<std::int32_t>(tier.slots.size());
      tier.slots.push_back(Slot{});
      ++tier.used;
    }
    tier.slots[static_cast<std::size_t>(s)].hash = hash;
    tier.push_newest(s);
    index_.insert(hash, t << kSlotBits | s);
    ++tier.stored;
    if (!full) return;
    hash = pushed_out;
  }
}

}  // namespace servesim
