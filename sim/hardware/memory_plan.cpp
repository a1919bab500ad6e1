#include "sim/hardware/memory_plan.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/model/shard.h"

namespace servesim {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Memory that is not weights, KV or per-token activations but is held all the same: the
// CUDA context and library workspaces (cuBLAS, NCCL), the CUDA-graph pool and the
// sampler's logits. vLLM reports this as "non_torch_memory" plus part of the profiled
// peak; 1 GiB is a round figure of that order for 7B-70B models, not a measurement.
constexpr double kFixedReserveBytes = 1.0 * kGiB;

}  // namespace

// The activation reserve follows vLLM's profiling run (vllm/v1/worker/gpu_worker.py
// determine_available_memory): vLLM runs one forward pass over max_num_batched_tokens
// dummy tokens and keeps its peak memory out of the KV cache. At the peak of that pass
// (inside the MLP) live: the hidden states and residual (2 x hidden per token), the
// gate/up output (2 x ffn/tp) and the activation output (1 x ffn/tp), all in the
// activation format.
MemoryPlan plan_memory(const ModelSpec& model, const HardwareSpec& hw, const Deployment& dep,
                       double gpu_memory_utilization, std::int64_t max_batched_tokens) {
  const ShardShape s = shard_shape(model, dep);
  MemoryPlan plan;
  plan.weight_bytes_per_gpu = weight_bytes_per_gpu(model, dep);
  // A MoE layer's peak holds the gate/up and activation outputs of the token's k routed
  // experts and of the shared experts: 3 x (k x expert width x ep + shared width) per GPU
  // (a GPU computes M*k/ep token-expert rows of width moe_intermediate*ep/tp).
  double mlp_width = s.dense_layers > 0 || !model.is_moe() ? s.intermediate : 0.0;
  if (model.is_moe()) {
    const double moe_width = model.experts_per_token * s.expert_intermediate / dep.ep + s.shared_intermediate;
    mlp_width = std::max(mlp_width, moe_width);
  }
  const double per_token_activation =
      (2.0 * model.hidden_size + 3.0 * mlp_width) * bytes_per_element(dep.activations);
  plan.activation_reserve_bytes_per_gpu =
      kFixedReserveBytes + static_cast<double>(max_batched_tokens) * per_token_activation;
  plan.kv_bytes_per_token_per_gpu =
      s.layers * kv_elements_per_token_layer(model, s) * bytes_per_element(dep.kv);

  const double usable = hw.memory_bytes * gpu_memory_utilization;
  const double kv_bytes = usable - plan.weight_bytes_per_gpu - plan.activation_reserve_bytes_per_gpu;
  plan.fits = kv_bytes > 0 && plan.kv_bytes_per_token_per_gpu > 0;
  plan.kv_capacity_tokens =
      plan.fits ? static_cast<std::int64_t>(std::floor(kv_bytes / plan.kv_bytes_per_token_per_gpu)) : 0;

  std::ostringstream why;
  why.precision(4);
  why << "per GPU: " << hw.memory_bytes / kGiB << " GiB x " << gpu_memory_utilization
      << " utilisation = " << usable / kGiB << " GiB usable; weights "
      << plan.weight_bytes_per_gpu / kGiB << " GiB (" << model.name << ", tp=" << dep.tp
      << " pp=" << dep.pp << (dep.ep > 1 ? " ep=" + std::to_string(dep.ep) : std::string()) << ", " << dtype_name(dep.weights) << "); activation reserve "
      << plan.activation_reserve_bytes_per_gpu / kGiB << " GiB (1 GiB + " << max_batched_tokens
      << " batched tokens); KV cache " << kv_bytes / kGiB << " GiB at "
      << plan.kv_bytes_per_token_per_gpu / 1024.0 << " KiB/token = " << plan.kv_capacity_tokens
      << " tokens";
  if (!plan.fits) why << " (does not fit: weights and reserve exceed usable memory)";
  plan.explanation = why.str();
  return plan;
}

}  // namespace servesim
