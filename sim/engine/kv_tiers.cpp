#include "sim/engine/kv_tiers.h"

#include "sim/core/assert.h"

namespace servesim {

KvTiers::KvTiers(std::int64_t cpu_blocks, std::int64_t disk_blocks) {
  SS_ASSERT(cpu_blocks >= 0 && disk_blocks >= 0, "a KV tier cannot hold a negative number of blocks");
  SS_ASSERT(cpu_blocks < (std::int64_t{1} << 31) && disk_blocks < (std::int64_t{1} << 31), "a KV tier of 2^31 blocks or more");
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
  for (int t = 0; t < kTiers; ++t) {
    Lru& tier = tiers_[t];
    const std::int32_t s = tier.index.find(hash);
    if (s < 0) continue;
    tier.touch(s);
    return static_cast<Tier>(t);
  }
  return kNone;
}

bool KvTiers::store(std::uint64_t hash) {
  Lru& cpu = tiers_[kCpu];
  if (const std::int32_t s = cpu.index.find(hash); s >= 0) {  // offloaded already: nothing to write
    cpu.touch(s);
    return false;
  }
  // Into CPU memory; a copy on disk alone stays there too.
  insert(kCpu, hash);
  return true;  // over the host link, to CPU memory or through it to disk
}

void KvTiers::insert(int t, std::uint64_t hash) {
  for (; t < kTiers; ++t) {
    Lru& tier = tiers_[t];
    if (tier.capacity == 0) continue;  // no such tier: straight to the next
    if (const std::int32_t s = tier.index.find(hash); s >= 0) {  // already here
      tier.touch(s);
      return;
    }
    std::int32_t s;
    std::uint64_t pushed_out = 0;
    const bool full = tier.index.size() == tier.capacity;
    if (full) {  // the least recently used leaves for the next tier, or out
      s = tier.oldest;
      pushed_out = tier.slots[static_cast<std::size_t>(s)].hash;
      tier.unlink(s);
      tier.index.erase(pushed_out);
    } else {
      s = static_cast<std::int32_t>(tier.slots.size());
      tier.slots.push_back(Slot{});
    }
    tier.slots[static_cast<std::size_t>(s)].hash = hash;
    tier.push_newest(s);
    tier.index.insert(hash, s);
    ++tier.stored;
    if (!full) return;
    hash = pushed_out;
  }
}

}  // namespace servesim
