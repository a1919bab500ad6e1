#pragma once
// A source that streams a file one request ahead of the simulation (the CSV and prefix
// traces): next_ holds the request the next pop() returns, and the subclass's advance()
// reads the one after it, or clears next_ at the file's end.
#include <optional>
#include <utility>

#include "sim/core/assert.h"
#include "sim/workload/source.h"

namespace servesim {

class LookaheadSource : public RequestSource {
 public:
  std::optional<Tick> peek_arrival_ns() override {
    if (!next_) return std::nullopt;
    return next_->arrival_ns;
  }
  RequestSpec pop() override {
    SS_ASSERT(next_.has_value(), "pop() on an exhausted trace");
    RequestSpec request = std::move(*next_);
    advance();
    return request;
  }
  bool exhausted() override { return !next_.has_value(); }

 protected:
  // Reads the next request into next_; resets it at the end. The subclass's constructor
  // calls it once, after its checking pass.
  virtual void advance() = 0;

  std::optional<RequestSpec> next_;
};

}  // namespace servesim
