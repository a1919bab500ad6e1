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
  TokenLengths lengths = lengths_->next();
  RequestSpec request;
  request.class_index = class_index_;
  request.arrival_ns = *arrival;
  request.prompt_tokens = lengths.prompt_tokens;
  request.output_tokens = lengths.output_tokens;
  request.input_clamped = lengths.prompt_clamped;
  request.output_clamped = lengths.output_clamped;
  request.block_hashes = std::move(lengths.block_hashes);
  next_ns_.reset();
  return request;
}

}  // namespace servesim
