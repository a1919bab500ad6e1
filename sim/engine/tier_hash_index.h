#pragma once
// The KV tiers' index from a block hash to the slot that holds it (kv_tiers.h): open
// addressing with linear probing, like the prefix cache's BlockHashIndex, but 8 bytes an
// entry instead of 16. An entry keeps a 32-bit tag of the hash (the high half of its
// multiplicative mix, whose top bits also choose the entry's home) and the slot plus one;
// a lookup that meets its tag confirms the match against the hash the slot itself holds,
// which the caller reads next anyway. Tiers hold millions of blocks, so the index is most
// of their memory and of their cache misses: half the bytes is half of both.
//
// At least twice as many entries as hashes; erasure shifts the run back (no tombstones);
// an empty entry is all zero bytes, on huge pages once large (zeroed_array.h).
#include <cstdint>
#include <utility>

#include "sim/core/zeroed_array.h"

namespace servesim {

class TierHashIndex {
 public:
  TierHashIndex() : entries_(16, PageSize::huge) {}

  std::int64_t size() const { return size_; }

  // The slot indexed under `hash`, or -1. `hash_of(slot)` is the hash a slot holds.
  template <typename HashOf>
  std::int32_t find(std::uint64_t hash, const HashOf& hash_of) const {
    const std::uint32_t t = tag(hash);
    for (std::size_t i = home(t);; i = (i + 1) & mask_) {
      const std::uint64_t e = entries_[i];
      if (e == kEmpty) return -1;
      if (tag_of(e) == t && hash_of(slot_of(e)) == hash) return slot_of(e);
    }
  }
  // Starts loading the entry a lookup of `hash` reads first.
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&entries_[home(tag(hash))]); }

  // Indexes `slot` under `hash`. REQUIRES: no entry has that hash; 0 <= slot < 2^31 - 1.
  void insert(std::uint64_t hash, std::int32_t slot) {
    if (2 * static_cast<std::size_t>(size_ + 1) > entries_.size()) grow();
    place(entry(tag(hash), slot));
    ++size_;
  }

  // Removes the entry of `slot`, indexed under `hash`. REQUIRES: it is in the index.
  void erase(std::uint64_t hash, std::int32_t slot) {
    const std::uint64_t gone = entry(tag(hash), slot);
    std::size_t i = home(tag(hash));
    while (entries_[i] != gone) i = (i + 1) & mask_;
    // Backward-shift deletion (Knuth 6.4, algorithm R), as in BlockHashIndex.
    for (std::size_t j = (i + 1) & mask_; entries_[j] != kEmpty; j = (j + 1) & mask_) {
      const std::size_t k = home(tag_of(entries_[j]));
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      entries_[i] = entries_[j];
      i = j;
    }
    entries_[i] = kEmpty;
    --size_;
  }

 private:
  static constexpr std::uint64_t kEmpty = 0;
  // Fibonacci hashing, as BlockHashIndex: sequential ids spread out.
  static std::uint32_t tag(std::uint64_t hash) { return static_cast<std::uint32_t>((hash * 0x9e3779b97f4a7c15ULL) >> 32); }
  static std::uint64_t entry(std::uint32_t t, std::int32_t slot) {
    return std::uint64_t{t} << 32 | (static_cast<std::uint32_t>(slot) + 1);
  }
  static std::uint32_t tag_of(std::uint64_t e) { return static_cast<std::uint32_t>(e >> 32); }
  static std::int32_t slot_of(std::uint64_t e) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(e) - 1); }
  // The top bits of the tag: a table of 2^k entries (k <= 32) takes k of them.
  std::size_t home(std::uint32_t t) const { return static_cast<std::size_t>(t >> shift_) & mask_; }
  void place(std::uint64_t e) {
    std::size_t i = home(tag_of(e));
    while (entries_[i] != kEmpty) i = (i + 1) & mask_;
    entries_[i] = e;
  }
  // Twice the entries, each placed again from its tag alone (no hash is needed).
  void grow() {
    const ZeroedArray<std::uint64_t> old =
        std::exchange(entries_, ZeroedArray<std::uint64_t>(2 * entries_.size(), PageSize::huge));
    mask_ = entries_.size() - 1;
    --shift_;
    for (std::size_t k = 0; k < old.size(); ++k)
      if (old[k] != kEmpty) place(old[k]);
  }

  ZeroedArray<std::uint64_t> entries_;
  std::size_t mask_ = 15;
  int shift_ = 28;  // 32 - log2(entries)
  std::int64_t size_ = 0;
};

}  // namespace servesim
