#pragma once
// Which replicas' load figures (waiting, running, KV usage) may have changed since a router
// last looked. A pool with many replicas routes in O(replicas that changed) instead of
// re-reading every replica on every arrival: at 1,024 replicas that re-read was a cache
// miss per replica and a tenth of the run (docs/performance.md).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace servesim {

class LoadChangeLog {
 public:
  explicit LoadChangeLog(std::size_t replicas) : changed_(replicas, 0) { list_.reserve(replicas); }

  void mark(int replica) {
    char& c = changed_[static_cast<std::size_t>(replica)];
    if (c) return;
    c = 1;
    list_.push_back(replica);
  }
  // Calls fn(replica) once for every replica marked since the last drain, in the order
  // they were first marked, and forgets them.
  template <class Fn>
  void drain(Fn&& fn) {
    for (const int i : list_) {
      changed_[static_cast<std::size_t>(i)] = 0;
      fn(i);
    }
    list_.clear();
  }
  void clear() {
    drain([](int) {});
  }

 private:
  std::vector<char> changed_;
  std::vector<int> list_;
};

}  // namespace servesim
