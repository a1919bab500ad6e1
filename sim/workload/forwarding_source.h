#pragma once
// A source that wraps another and changes part of what it offers (its requests' times, an
// adapter they name): every call a decorator does not override goes to the inner source,
// so none is dropped by being forgotten (a closed loop's on_finished, say).
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "sim/workload/source.h"

namespace servesim {

class ForwardingSource : public RequestSource {
 public:
  explicit ForwardingSource(std::unique_ptr<RequestSource> inner) : inner_(std::move(inner)) {}
  std::optional<Tick> peek_arrival_ns() override { return inner_->peek_arrival_ns(); }
  RequestSpec pop() override { return inner_->pop(); }
  void on_finished(const RequestSpec& request, Tick now_ns) override { inner_->on_finished(request, now_ns); }
  bool exhausted() override { return inner_->exhausted(); }
  std::uint64_t raised_input_samples() const override { return inner_->raised_input_samples(); }
  bool names_adapters() const override { return inner_->names_adapters(); }

 private:
  std::unique_ptr<RequestSource> inner_;
};

}  // namespace servesim
