#include "sim/workload/closed_loop_source.h"

#include <cmath>

#include "sim/core/assert.h"

namespace servesim {

ClosedLoopSource::ClosedLoopSource(int concurrency, std::unique_ptr<Distribution> think_time_s, Rng think_rng,
                                   std::unique_ptr<LengthSource> lengths, int class_index)
    : concurrency_(concurrency),
      think_time_s_(std::move(think_time_s)),
      think_rng_(think_rng),
      lengths_(std::move(lengths)),
      class_index_(class_index) {
  SS_ASSERT(concurrency_ >= 1, "closed loop needs at least one user");
  SS_ASSERT(lengths_ != nullptr, "closed loop needs lengths");
  for (int user = 0; user < concurrency_; ++user) ready_ns_.push(0);
}

std::optional<Tick> ClosedLoopSource::peek_arrival_ns() {
  if (ready_ns_.empty() || !lengths_->has_next()) return std::nullopt;
  return ready_ns_.top();
}

RequestSpec ClosedLoopSource::pop() {
  const std::optional<Tick> arrival = peek_arrival_ns();
  SS_ASSERT(arrival.has_value(), "pop() without an arrival to offer");
  ready_ns_.pop();
  ++outstanding_;
  SS_ASSERT(outstanding_ <= concurrency_, "closed loop over its concurrency");
  return request_with_lengths(lengths_->next(), class_index_, *arrival);
}

void ClosedLoopSource::on_finished(const RequestSpec& request, Tick now_ns) {
  (void)request;
  SS_ASSERT(outstanding_ > 0, "on_finished without an outstanding request");
  --outstanding_;
  Tick think_ns = 0;
  if (think_time_s_) {
    // A distribution that can go negative (a normal) is read as "no pause"; a pause beyond
    // a year is capped there, so the conversion to ticks cannot overflow.
    constexpr double kMaxThinkS = 365.0 * 24 * 3600;
    const double think_s = think_time_s_->sample(think_rng_);
    if (think_s > 0) think_ns = ticks_from_seconds(std::fmin(think_s, kMaxThinkS));
  }
  ready_ns_.push(now_ns + think_ns);
}

}  // namespace servesim
