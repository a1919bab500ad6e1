#pragma once
// The first index holding the smallest key, kept up to date as keys change: a tournament
// tree, O(log n) per change and O(1) per query (a router's per-request work must
// not grow with the replicas; scanning 1,024 load snapshots per request was 12% of the
// instructions of a 1,024-replica run and half its cache misses). Ties go to the lower
// index, exactly as a left-to-right scan for the first minimum: each node keeps the winner
// of its two children, the left one (lower indices) on a tie.
#include <cstddef>
#include <vector>

namespace servesim {

template <typename Key>
class ArgminTree {
 public:
  ArgminTree() = default;
  // `n` indices, each with the key `initial`.
  explicit ArgminTree(std::size_t n, const Key& initial = Key{}) : keys_(n, initial) {
    while (leaves_ < n) leaves_ *= 2;
    winners_.assign(2 * leaves_, -1);
    for (std::size_t i = 0; i < n; ++i) winners_[leaves_ + i] = static_cast<int>(i);
    for (std::size_t p = leaves_ - 1; p >= 1; --p) winners_[p] = better(winners_[2 * p], winners_[2 * p + 1]);
  }

  std::size_t size() const { return keys_.size(); }
  const Key& key(std::size_t i) const { return keys_[i]; }
  // REQUIRES: size() > 0.
  int argmin() const { return winners_[1]; }

  void set(std::size_t i, const Key& key) {
    if (!(keys_[i] < key) && !(key < keys_[i])) return;  // the same key: no winner changes
    keys_[i] = key;
    for (std::size_t p = (leaves_ + i) / 2; p >= 1; p /= 2) winners_[p] = better(winners_[2 * p], winners_[2 * p + 1]);
  }

 private:
  int better(int a, int b) const {
    if (a < 0) return b;
    if (b < 0) return a;
    return keys_[static_cast<std::size_t>(b)] < keys_[static_cast<std::size_t>(a)] ? b : a;
  }

  std::vector<Key> keys_;
  std::size_t leaves_ = 1;
  std::vector<int> winners_;  // node p's children are 2p and 2p + 1; leaves from leaves_; 0 unused
};

}  // namespace servesim
