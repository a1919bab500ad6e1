#pragma once
// Drawing the LoRA adapter each request of a class names (lora_demand_spec.h).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/workload/lora_demand_spec.h"
#include "sim/workload/forwarding_source.h"

namespace servesim {

// The largest adapter id a request can carry (RequestSpec::lora_adapter is 16 bits wide, so
// that the field fits the spec's padding).
inline constexpr int kMaxLoraAdapterId = 32767;

// Draws each request's adapter from its own random stream ("workload/<class>/lora"), so
// naming adapters changes no other draw of the class.
class LoraAdapterPicker {
 public:
  LoraAdapterPicker(const LoraDemandSpec& spec, std::uint64_t seed, const std::string& class_name);
  int draw();

 private:
  int first_;
  std::vector<double> cdf_;  // cumulative probability of ids first_ .. first_ + n - 1
  Rng rng_;
};

// A source whose requests carry an adapter drawn by a LoraAdapterPicker; timing and lengths
// are the inner source's.
class LoraTaggedSource final : public ForwardingSource {
 public:
  LoraTaggedSource(std::unique_ptr<RequestSource> inner, LoraAdapterPicker picker)
      : ForwardingSource(std::move(inner)), picker_(std::move(picker)) {}
  RequestSpec pop() override {
    RequestSpec r = ForwardingSource::pop();
    r.lora_adapter = static_cast<std::int16_t>(picker_.draw());
    return r;
  }
  bool names_adapters() const override { return true; }

 private:
  LoraAdapterPicker picker_;
};

}  // namespace servesim
