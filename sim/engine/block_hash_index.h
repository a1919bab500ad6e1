#pragma once
// The prefix cache's hash -> block index (block_pool.h): open addressing with linear
// probing, each slot holding a hash and its block. It replaces a std::unordered_map, which
// allocated a node for every block registered and, with the identity std::hash, put the
// consecutive private hashes of one prompt (base + index) into long bucket chains: with
// prefix caching on, every full block of every prompt is registered once, so the map cost
// a node allocation, a free on eviction and a chain walk per 16 tokens (docs/performance.md).
//
// The hash lives in the slot so that a probe touches one cache line, not the pool's
// per-block arrays as well. At least twice as many slots as entries keeps probes short;
// erasure shifts the following run back (no tombstones), so lookups never slow down over a
// long run. A pure index: which block holds which hash is the pool's business.
//
// An empty slot is all zero bytes (a slot stores its block plus one), so a new slot array
// is a ZeroedArray: nothing writes it out just to mark it empty, and a large one sits on
// huge pages (random probes all over a table of millions of blocks would otherwise fault
// in and miss the TLB on every 4 KiB page).
#include <cstdint>
#include <utility>

#include "sim/core/zeroed_array.h"

namespace servesim {

class BlockHashIndex {
 public:
  // Starts small and doubles as entries come (a replica that serves a few requests
  // never pays for its whole KV cache's worth of slots).
  BlockHashIndex() : slots_(16, PageSize::huge), mask_(15) {}

  std::int64_t size() const { return size_; }

  // The block indexed under `hash`, or -1.
  std::int32_t find(std::uint64_t hash) const {
    for (std::size_t i = home(hash);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.block_plus_one == kEmpty) return -1;
      if (s.hash == hash) return static_cast<std::int32_t>(s.block_plus_one - 1);
    }
  }

  // Starts loading the slot a lookup of `hash` reads first (a hint for loops over hashes).
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&slots_[home(hash)]); }
  // Indexes `block` under `hash`. REQUIRES: no entry has that hash; block >= 0.
  void insert(std::uint64_t hash, std::int32_t block) {
    if (2 * static_cast<std::size_t>(size_ + 1) > slots_.size()) grow();
    std::size_t i = home(hash);
    while (slots_[i].block_plus_one != kEmpty) i = (i + 1) & mask_;
    slots_[i] = Slot{hash, static_cast<std::uint32_t>(block) + 1};
    ++size_;
  }

  // Removes the entry of `hash`. REQUIRES: it is in the index.
  void erase(std::uint64_t hash) {
    std::size_t i = home(hash);
    while (slots_[i].hash != hash || slots_[i].block_plus_one == kEmpty) i = (i + 1) & mask_;
    // Backward-shift deletion (Knuth 6.4, algorithm R): move back every later entry of the
    // run whose home is not cyclically within (i, j], so no probe ever meets a hole early.
    for (std::size_t j = (i + 1) & mask_; slots_[j].block_plus_one != kEmpty; j = (j + 1) & mask_) {
      const std::size_t k = home(slots_[j].hash);
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = Slot{0, kEmpty};
    --size_;
  }

 private:
  static constexpr std::uint32_t kEmpty = 0;
  struct Slot {  // all zero bytes: empty
    std::uint64_t hash;
    std::uint32_t block_plus_one;
  };
  // Fibonacci hashing: sources may give small sequential ids as hashes (Mooncake traces),
  // and private hashes are consecutive within a prompt, so the slot is taken from the high
  // bits of a multiplicative mix.
  std::size_t home(std::uint64_t hash) const {
    return static_cast<std::size_t>((hash * 0x9e3779b97f4a7c15ULL) >> 24) & mask_;
  }
  // Twice the slots, every entry placed again: lookups answer the same, only faster.
  void grow() {
    const ZeroedArray<Slot> old = std::exchange(slots_, ZeroedArray<Slot>(2 * slots_.size(), PageSize::huge));
    mask_ = slots_.size() - 1;
    for (std::size_t k = 0; k < old.size(); ++k) {
      const Slot& s = old[k];
      if (s.block_plus_one == kEmpty) continue;
      std::size_t i = home(s.hash);
      while (slots_[i].block_plus_one != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  ZeroedArray<Slot> slots_;
  std::size_t mask_ = 0;
  std::int64_t size_ = 0;
};

}  // namespace servesim
