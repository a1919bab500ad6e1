#pragma once
// Closed loop: `concurrency` users, each with at most one request outstanding. All users
// send their first request at t = 0; when a request finishes (completed or rejected) at
// time `now`, its user sends the next one at now + think_time (think_time absent: 0).
// Users are interchangeable, so the source only counts them: a finish frees one user,
// whichever request it was. Between completions peek_arrival_ns() may have nothing to
// offer; a later on_finished makes a new arrival available, never earlier than `now`.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "sim/core/rng.h"
#include "sim/workload/distribution.h"
#include "sim/workload/length_source.h"
#include "sim/workload/source.h"

namespace servesim {

class ClosedLoopSource : public RequestSource {
 public:
  // `think_time_s` may be null (no pause). REQUIRES: concurrency >= 1.
  ClosedLoopSource(int concurrency, std::unique_ptr<Distribution> think_time_s, Rng think_rng,
                   std::unique_ptr<LengthSource> lengths, int class_index);

  std::optional<Tick> peek_arrival_ns() override;
  RequestSpec pop() override;
  void on_finished(const RequestSpec& request, Tick now_ns) override;
  // True once the lengths are used up (a length-only file); sampled lengths never end.
  bool exhausted() override { return !lengths_->has_next(); }
  std::uint64_t raised_input_samples() const override { return lengths_->raised_input_samples(); }

  // Requests popped and not yet finished; never above the concurrency.
  int outstanding() const { return outstanding_; }

 private:
  int concurrency_;
  std::unique_ptr<Distribution> think_time_s_;
  Rng think_rng_;
  std::unique_ptr<LengthSource> lengths_;
  int class_index_;
  int outstanding_ = 0;
  // Times at which idle users send their next request, earliest first.
  std::priority_queue<Tick, std::vector<Tick>, std::greater<Tick>> ready_ns_;
};

}  // namespace servesim
