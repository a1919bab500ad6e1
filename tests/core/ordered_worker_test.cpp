// OrderedWorker: batches applied on its thread in the order handed over, all of them by
// drain(), with apply's exception brought back to the caller.
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/core/ordered_worker.h"

namespace ordered_worker_test {

using namespace servesim;

namespace {

struct Numbers {
  std::vector<int> values;
  bool empty() const { return values.empty(); }
  void clear() { values.clear(); }
};

}  // namespace

TEST_CASE("ordered worker: every value applied in the order handed over - on another thread", "[core]") {
  std::vector<int> applied;  // the worker's alone until drain()
  std::thread::id applier;
  OrderedWorker<Numbers> worker([&](Numbers& batch) {
    applier = std::this_thread::get_id();
    applied.insert(applied.end(), batch.values.begin(), batch.values.end());
  });
  std::vector<int> expected;
  for (int i = 0; i < 100000; ++i) {
    worker.filling().values.push_back(i * 7 % 1009);
    expected.push_back(i * 7 % 1009);
    if (i % 1000 == 999) worker.hand_over();  // more batches than the queue holds at once
  }
  worker.filling().values.push_back(-1);  // a partial batch: drain hands it over
  expected.push_back(-1);
  worker.drain();
  CHECK(applied == expected);
  CHECK(applier != std::this_thread::get_id());
  // Reused batches come back empty.
  CHECK(worker.filling().empty());
  worker.filling().values.push_back(5);
  worker.drain();
  CHECK(applied.back() == 5);
  CHECK(applied.size() == expected.size() + 1);
}

TEST_CASE("ordered worker: an exception in apply comes back from drain - later batches skipped", "[core]") {
  int batches = 0;
  OrderedWorker<Numbers> worker([&](Numbers& batch) {
    ++batches;
    if (batch.values.front() == 2) throw std::runtime_error("bad batch");
  });
  for (int b = 1; b <= 3; ++b) {
    worker.filling().values.push_back(b);
    worker.hand_over();
  }
  CHECK_THROWS_WITH(worker.drain(), "bad batch");
  CHECK(batches == 2);
  worker.drain();  // reported once
}

TEST_CASE("ordered worker: batches still queued are applied before it is destroyed", "[core]") {
  std::vector<int> applied;
  {
    OrderedWorker<Numbers> worker([&](Numbers& batch) { applied.push_back(batch.values.front()); });
    for (int b = 0; b < 3; ++b) {
      worker.filling().values.push_back(b);
      worker.hand_over();
    }
  }
  CHECK(applied == std::vector<int>{0, 1, 2});
}

TEST_CASE("ordered worker: an empty batch is not handed over - no thread without work", "[core]") {
  int batches = 0;
  OrderedWorker<Numbers> worker([&](Numbers&) { ++batches; });
  worker.hand_over();
  worker.drain();
  CHECK(batches == 0);
}

}  // namespace ordered_worker_test
