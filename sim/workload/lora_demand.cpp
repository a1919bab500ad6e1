#include "sim/workload/lora_demand.h"

#include <algorithm>
#include <cmath>

namespace servesim {

LoraAdapterPicker::LoraAdapterPicker(const LoraDemandSpec& spec, std::uint64_t seed, const std::string& class_name)
    : first_(spec.first_adapter), rng_(seed, "workload/" + class_name + "/lora") {
  cdf_.reserve(static_cast<std::size_t>(spec.adapters));
  double sum = 0;
  for (int k = 1; k <= spec.adapters; ++k) {
    sum += spec.distribution == LoraDemandSpec::Distribution::zipf ? std::pow(static_cast<double>(k), -spec.zipf_exponent) : 1.0;
    cdf_.push_back(sum);
  }
  for (double& c : cdf_) c /= sum;
  cdf_.back() = 1.0;  // a draw below 1 always finds an entry
}

int LoraAdapterPicker::draw() {
  const double u = rng_.uniform01();
  const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  return first_ + static_cast<int>(it - cdf_.begin());
}

}  // namespace servesim
