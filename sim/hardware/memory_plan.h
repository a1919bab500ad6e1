#pragma once
// How a replica's device memory divides into weights, an activation reserve and KV cache.
#include <cstdint>
#include <string>

#include "sim/hardware/hardware_spec.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

struct MemoryPlan {
  double weight_bytes_per_gpu = 0;
  double activation_reserve_bytes_per_gpu = 0;
  double kv_bytes_per_token_per_gpu = 0;
  std::int64_t kv_capacity_tokens = 0;  // whole replica, before rounding to blocks
  bool fits = false;                    // false: the weights alone exceed usable memory
  std::string explanation;              // the arithmetic, for error messages and reports
};

// usable = memory_bytes * gpu_memory_utilization; KV = usable - weights/GPU - reserve.
MemoryPlan plan_memory(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                       double gpu_memory_utilization, std::int64_t max_batched_tokens);

}  // namespace servesim
