#include "sim/workload/synthetic_source.h"

#include "sim/core/assert.h"

namespace servesim {

SyntheticSource::SyntheticSource(std::unique_ptr<ArrivalProcess> arrivals, std::unique_ptr<LengthSource> lengths,
                                 int class_index)
    : arrivals_(std::move(arrivals)), lengths_(std::move(lengths)), class_index_(class_index) {
  SS_ASSERT(arrivals_ && lengths_, "a synthetic source needs arrivals and lengths");
}

std::optional<Tick> SyntheticSource::peek_arrival_ns() {
  if (!lengths_->has_next() || arrivals_ended_) return std::nullopt;
  if (!next_ns_) {
    const std::optional<double> at_s = arrivals_->next_arrival_s(clock_s_);
    if (!at_s) {
      arrivals_ended_ = true;
      return std::nullopt;
    }
    clock_s_ = *at_s;
    next_ns_ = ticks_from_seconds(clock_s_);
  }
  return next_ns_;
}

RequestSpec SyntheticSource::pop() {
  const std::optional<Tick> arrival = peek_arrival_ns();
  SS_ASSERT(arrival.has_value(), "pop() without an arrival to offer");
  RequestSpec request = request_with_lengths(lengths_->next(), class_index_, *arrival);
  next_ns_.reset();
  return request;
}

}  // namespace servesim
