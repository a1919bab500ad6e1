#include "sim/engine/kv_tiers.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace servesim {

KvTiers::KvTiers(std::int64_t cpu_blocks, std::int64_t disk_blocks)
    : slots_(static_cast<std::size_t>(std::max<std::int64_t>(cpu_blocks + disk_blocks, 0)), PageSize::huge) {
  SS_ASSERT(cpu_blocks >= 0 && disk_blocks >= 0, "a KV tier cannot hold a negative number of blocks");
  SS_ASSERT(cpu_blocks + disk_blocks < (std::int64_t{1} << kSlotBits), "KV tiers of 2^30 blocks or more");
  tiers_[kCpu].capacity = cpu_blocks;
  tiers_[kDisk].capacity = disk_blocks;
}

void KvTiers::unlink(Lru& tier, std::int32_t s) {
  Slot& k = slots_[static_cast<std::size_t>(s)];
  if (k.newer != kNil) slots_[static_cast<std::size_t>(k.newer)].older = k.older;
  else tier.newest = k.older;
  if (k.older != kNil) slots_[static_cast<std::size_t>(k.older)].newer = k.newer;
  else tier.oldest = k.newer;
  k.newer = k.older = kNil;
}

void KvTiers::push_newest(Lru& tier, std::int32_t s) {
  Slot& k = slots_[static_cast<std::size_t>(s)];
  k.newer = kNil;
  k.older = tier.newest;
  if (tier.newest != kNil) slots_[static_cast<std::size_t>(tier.newest)].newer = s;
  tier.newest = s;
  if (tier.oldest == kNil) tier.oldest = s;
}

KvTiers::Tier KvTiers::find(std::uint64_t hash) {
  const std::int32_t s = slot_of(hash);
  if (s < 0) return kNone;
  const auto t = static_cast<Tier>(slots_[static_cast<std::size_t>(s)].tier);
  touch(tiers_[t], s);
  return t;
}

std::int32_t KvTiers::new_slot() {
  if (!free_slots_.empty()) {
    const std::int32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  return slots_used_++;
}

void KvTiers::make_room(int t) {
  Lru& tier = tiers_[t];
  if (tier.used < tier.capacity) return;
  const std::int32_t s = tier.oldest;
  unlink(tier, s);
  --tier.used;
  const int next = first_tier_from(t + 1);
  // The next store takes the new oldest block: start loading what it will touch (the slot
  // it unlinks, and the index entry it erases when it leaves the tiers) while this one goes
  // on. Blocks leave a full tier one after another in LRU order, so this hides most of
  // their cache misses.
  if (const std::int32_t o = tier.oldest; o != kNil) {
    const Slot& oldest = slots_[static_cast<std::size_t>(o)];
    if (oldest.newer != kNil) __builtin_prefetch(&slots_[static_cast<std::size_t>(oldest.newer)]);
    if (next == kTiers) index_.prefetch(oldest.hash);
  }
  if (next == kTiers) {  // out of the last tier: forgotten
    index_.erase(slots_[static_cast<std::size_t>(s)].hash, s);
    free_slots_.push_back(s);
    return;
  }
  make_room(next);
  Lru& below = tiers_[next];
  slots_[static_cast<std::size_t>(s)].tier = static_cast<std::uint32_t>(next);
  push_newest(below, s);
  ++below.used;
  ++below.stored;
}

bool KvTiers::store(std::uint64_t hash) {
  const int first = first_tier_from(kCpu);
  std::int32_t s = slot_of(hash);
  if (s >= 0) {
    Lru& tier = tiers_[slots_[static_cast<std::size_t>(s)].tier];
    if (&tier == &tiers_[kCpu]) {  // offloaded already: nothing to write
      touch(tier, s);
      return false;
    }
    // On disk: the eviction writes it to CPU memory (or the disk again, without a CPU
    // tier), and it leaves its place on disk.
    unlink(tier, s);
    --tier.used;
  }
  if (first == kTiers) return true;  // tiers too small to hold a block: written and gone at once
  make_room(first);
  if (s < 0) {
    s = new_slot();
    slots_[static_cast<std::size_t>(s)].hash = hash;
    index_.insert(hash, s);
  }
  Lru& tier = tiers_[first];
  slots_[static_cast<std::size_t>(s)].tier = static_cast<std::uint32_t>(first);
  push_newest(tier, s);
  ++tier.used;
  ++tier.stored;
  return true;  // over the host link, to CPU memory or through it to disk
}

}  // namespace servesim
