#pragma once
// Batches of work that one thread hands to a second one, done there one by one in the
// order handed over. The metrics of a long run go this way: the simulation fills a batch
// of updates, hands it over and goes on while the worker applies it on another core, and
// it reads what the updates change only after drain(). Since the batches are applied in
// the order they were filled, by one thread, the result is the one applying each update
// in place would give, bit for bit.
//
// Only the thread that constructed the worker calls its members. `Batch` has empty() and
// clear(); `apply` does one batch's work (the batch is cleared afterwards and reused, so
// its vectors keep their capacity).
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace servesim {

template <class Batch>
class OrderedWorker {
 public:
  // Batches handed over but not yet applied, at most: a worker slower than the simulation
  // makes it wait rather than let memory grow with the run.
  static constexpr std::size_t kMostQueued = 2;

  explicit OrderedWorker(std::function<void(Batch&)> apply) : apply_(std::move(apply)) {}
  ~OrderedWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  OrderedWorker(const OrderedWorker&) = delete;
  OrderedWorker& operator=(const OrderedWorker&) = delete;

  // The batch being filled.
  Batch& filling() { return *filling_; }

  // Readies every batch the worker will ever use, `prepare` sizing each (the one being
  // filled, the kMostQueued that may wait and the one being applied): no batch is
  // allocated afterwards, so the memory they take does not depend on how far the worker
  // falls behind. Call before the first hand_over.
  template <class Prepare>
  void preallocate(Prepare prepare) {
    prepare(*filling_);
    std::lock_guard<std::mutex> lock(mutex_);
    while (spare_.size() < kMostQueued + 1) {
      spare_.push_back(std::make_unique<Batch>());
      prepare(*spare_.back());
    }
  }

  // Hands the batch being filled over (the worker thread starts on the first), and starts
  // an empty one.
  void hand_over() {
    if (filling_->empty()) return;
    std::unique_lock<std::mutex> lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
    work_done_.wait(lock, [this] { return queued_.size() < kMostQueued; });
    queued_.push_back(std::move(filling_));
    if (spare_.empty()) {
      filling_ = std::make_unique<Batch>();
    } else {
      filling_ = std::move(spare_.back());
      spare_.pop_back();
    }
    lock.unlock();
    work_ready_.notify_one();
  }

  // Hands over what is being filled and returns once every batch has been applied, so the
  // caller may read what they changed. Rethrows what `apply` threw, if it did.
  void drain() {
    hand_over();
    std::unique_lock<std::mutex> lock(mutex_);
    work_done_.wait(lock, [this] { return queued_.empty() && !busy_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
      if (queued_.empty()) return;  // stopping, and nothing left
      std::unique_ptr<Batch> batch = std::move(queued_.front());
      queued_.pop_front();
      busy_ = true;
      const bool failed_before = static_cast<bool>(error_);
      lock.unlock();
      std::exception_ptr error;
      if (!failed_before) {  // after a failure the results are lost anyway: skip the rest
        try {
          apply_(*batch);
        } catch (...) {
          error = std::current_exception();
        }
      }
      batch->clear();
      lock.lock();
      if (error && !error_) error_ = error;
      busy_ = false;
      spare_.push_back(std::move(batch));
      work_done_.notify_all();
    }
  }

  std::function<void(Batch&)> apply_;
  std::unique_ptr<Batch> filling_ = std::make_unique<Batch>();
  // Below: shared with the worker thread, under mutex_.
  std::mutex mutex_;
  std::condition_variable work_ready_;  // a batch queued, or stopping
  std::condition_variable work_done_;   // a batch applied
  std::deque<std::unique_ptr<Batch>> queued_;
  std::vector<std::unique_ptr<Batch>> spare_;
  bool busy_ = false;  // the worker is applying a batch it took off queued_
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace servesim
