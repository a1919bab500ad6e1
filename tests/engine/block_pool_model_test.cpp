// BlockPool against a reference written the obvious way (a std::list free queue, a
// std::map of hashes): random allocations, releases, hits and registrations must give the
// same blocks in the same order, the same counts and the same hits, up to a relabelling of
// the free blocks without a hash: those are interchangeable, and the pool hands out the
// ids freed last (block_pool.h), where the list hands out the one freed first. The pool's ring with
// stale entries (grown, compacted) must be indistinguishable from the list it replaced, and
// so must blocks freed without a hash (release_plain, one or several at once), whose
// records the pool never reads, and allocations of several blocks at once.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <random>
#include <vector>

#include "sim/engine/block_pool.h"

namespace block_pool_model_test {

using namespace servesim;

namespace {

class ReferencePool {
 public:
  explicit ReferencePool(std::int32_t n) : ref_(n, 0), hash_(n), has_(n, false) {
    for (std::int32_t b = 0; b < n; ++b) free_.push_back(b);
  }
  std::int64_t num_free() const { return static_cast<std::int64_t>(free_.size()); }
  std::int32_t front() const { return free_.front(); }
  std::int32_t find_cached(std::uint64_t h) const {
    const auto it = index_.find(h);
    return it == index_.end() ? -1 : it->second;
  }
  void touch(std::int32_t b) {
    if (ref_[b]++ == 0) free_.remove(b);
  }
  std::int32_t allocate() {
    const std::int32_t b = free_.front();
    free_.pop_front();
    if (has_[b]) {
      index_.erase(hash_[b]);
      has_[b] = false;
      ++evictions;
    }
    ref_[b] = 1;
    return b;
  }
  void release(std::int32_t b) {
    if (--ref_[b] == 0) free_.push_back(b);
  }
  bool cache(std::int32_t b, std::uint64_t h) {
    if (has_[b] || index_.count(h)) return false;
    has_[b] = true;
    hash_[b] = h;
    index_[h] = b;
    return true;
  }
  int ref(std::int32_t b) const { return ref_[b]; }
  bool has_hash(std::int32_t b) const { return has_[b]; }
  std::int64_t evictions = 0;

 private:
  std::vector<int> ref_;
  std::vector<std::uint64_t> hash_;
  std::vector<bool> has_;
  std::list<std::int32_t> free_;
  std::map<std::uint64_t, std::int32_t> index_;
};

}  // namespace

TEST_CASE("block pool: random operations match a linked-list LRU reference", "[prefix][engine]") {
  // Two mixes: mostly allocations (the ring grows), and mostly hits on free cached blocks
  // and releases (entries go stale faster than the head consumes them: compaction).
  struct Mix {
    std::int32_t blocks;
    unsigned allocate, release;  // out of 10; the rest are lookups
  };
  for (const Mix mix : {Mix{1, 4, 4}, Mix{7, 4, 4}, Mix{64, 4, 4}, Mix{1000, 4, 4}, Mix{16, 1, 5}, Mix{64, 1, 5}}) {
    const std::int32_t blocks = mix.blocks;
    BlockPool pool(blocks);
    ReferencePool ref(blocks);
    std::mt19937_64 rng(static_cast<std::uint64_t>(blocks) * 7919u + mix.allocate);
    std::vector<std::int32_t> held;  // pool ids, one entry per reference taken
    // The relabelling: label[pool id] is the reference's id for the same block, inv the
    // inverse. A plain block's label is set when it is allocated (swapped with the label
    // of the reference's block), a hashed block's must match.
    std::vector<std::int32_t> label(static_cast<std::size_t>(blocks)), inv(static_cast<std::size_t>(blocks));
    for (std::int32_t b = 0; b < blocks; ++b) label[b] = inv[b] = b;
    std::int64_t relabelled = 0;
    const auto allocated = [&](std::int32_t p) {
      REQUIRE(p >= 0);
      REQUIRE(p < blocks);
      const std::int32_t r = ref.front();
      const std::int32_t q = label[p];
      if (ref.has_hash(r)) {
        REQUIRE(q == r);  // an eviction: the very block
      } else {
        // A plain free block for a plain free block: p's block must be one in the reference.
        REQUIRE(ref.ref(q) == 0);
        REQUIRE(!ref.has_hash(q));
        if (q != r) ++relabelled;
        const std::int32_t pr = inv[r];
        label[pr] = q;
        inv[q] = pr;
        label[p] = r;
        inv[r] = p;
      }
      REQUIRE(ref.allocate() == r);
      return p;
    };
    std::int64_t hits = 0, allocations = 0, compared = 0;
    const std::uint64_t hash_space = static_cast<std::uint64_t>(blocks) * 2 + 3;
    for (int step = 0; step < 200000; ++step) {
      const auto op = rng() % 10;
      // Several blocks at once (a prompt's allocation, a block table's release) in the
      // allocation-heavy mixes; the hit-heavy ones keep single operations, whose pattern
      // drives the ring to compaction.
      if (op < mix.allocate && ref.num_free() > 0 && mix.allocate > 1 && rng() % 4 == 0) {  // several at once
        const auto n = std::min<std::int64_t>(ref.num_free(), 1 + static_cast<std::int64_t>(rng() % 9));
        std::vector<std::int32_t> got;
        pool.allocate_into(got, n);
        REQUIRE(static_cast<std::int64_t>(got.size()) == n);
        for (const std::int32_t b : got) held.push_back(allocated(b));
        allocations += n;
      } else if (op < mix.allocate && ref.num_free() > 0) {  // allocate, sometimes register a hash
        const std::int32_t b = allocated(pool.allocate());
        ++allocations;
        held.push_back(b);
        if (rng() % 2) {
          const std::uint64_t h = rng() % hash_space;
          REQUIRE(pool.cache(b, h) == ref.cache(label[b], h));
        }
      } else if (op < mix.allocate + mix.release && !held.empty() && mix.allocate > 1 && rng() % 4 == 0) {
        // Several unhashed blocks freed at once, the last first (a block table's tail).
        std::vector<std::int32_t> plain;
        for (std::size_t i = 0; i < held.size() && plain.size() < 6;) {
          const std::int32_t b = held[i];
          if (!ref.has_hash(label[b]) && ref.ref(label[b]) == 1 && std::find(plain.begin(), plain.end(), b) == plain.end()) {
            plain.push_back(b);
            held[i] = held.back();
            held.pop_back();
          } else {
            ++i;
          }
        }
        pool.release_plain_reversed(plain.data(), plain.size());
        for (std::size_t i = plain.size(); i-- > 0;) ref.release(label[plain[i]]);
      } else if (op < mix.allocate + mix.release && !held.empty()) {  // release one reference
        const std::size_t i = rng() % held.size();
        const std::int32_t b = held[i];
        held[i] = held.back();
        held.pop_back();
        // A caller that knows the block holds no hash (so it is the only holder) frees it
        // without its record: the pool must behave the same either way.
        if (!ref.has_hash(label[b]) && rng() % 2) {
          REQUIRE(ref.ref(label[b]) == 1);
          pool.release_plain(b);
        } else {
          pool.release(b);
        }
        ref.release(label[b]);
      } else {  // a lookup, and a hit takes the block (from the middle of the free queue)
        const std::uint64_t h = rng() % hash_space;
        const std::int32_t b = pool.find_cached(h);
        const std::int32_t r = ref.find_cached(h);
        REQUIRE((b >= 0) == (r >= 0));
        if (b >= 0) {
          REQUIRE(label[b] == r);
          pool.touch(b);
          ref.touch(r);
          held.push_back(b);
          ++hits;
        }
      }
      REQUIRE(pool.num_free() == ref.num_free());
      REQUIRE(pool.evictions() == ref.evictions);
      ++compared;
    }
    for (std::int32_t b : held) REQUIRE(pool.ref_count(b) == ref.ref(label[b]));
    // Drain: every free block comes back in the reference's order.
    while (ref.num_free() > 0) allocated(pool.allocate());
    INFO("blocks " << blocks << ", allocate " << mix.allocate << "/10");
    CHECK(compared == 200000);
    CHECK(allocations > 10000);
    if (blocks > 1) CHECK(hits > 1000);  // the middle-of-queue path ran
    if (blocks > 1) CHECK(relabelled > 100);  // the pool's plain ids are not the list's
    if (mix.allocate == 1) CHECK(pool.ring_compactions() > 10);
  }
}

TEST_CASE("block pool: plain blocks freed and taken again reuse the ids freed last", "[prefix][engine]") {
  // Once the never-used blocks are gone, a replica that allocates and frees plain blocks
  // takes back the ones it freed last: a few ids whose table entries stay in cache, not a
  // walk through every block of the pool (block_pool.h).
  BlockPool pool(4096);
  std::vector<std::int32_t> all;
  pool.allocate_into(all, 4096);
  pool.release_plain_reversed(all.data(), all.size());
  std::vector<std::int32_t> first;
  pool.allocate_into(first, 10);
  CHECK(first == std::vector<std::int32_t>(all.begin(), all.begin() + 10));  // the last freed
  for (int round = 0; round < 1000; ++round) {
    pool.release_plain_reversed(first.data(), first.size());
    std::vector<std::int32_t> again;
    pool.allocate_into(again, 10);
    REQUIRE(again == first);
    for (int i = 0; i < 3; ++i) {  // one at a time too
      const std::int32_t b = pool.allocate();
      REQUIRE(b == all[10]);
      pool.release_plain(b);
    }
  }
  CHECK(pool.num_free() == 4096 - 10);
}

}  // namespace block_pool_model_test
