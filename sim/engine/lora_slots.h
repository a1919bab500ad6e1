#pragma once
// Multi-LoRA serving in one replica (docs/lora.md): which adapters a step's batch uses
// (at most max_loras distinct) and which adapters sit in GPU and CPU memory.
#include <cstdint>
#include <vector>

#include "sim/core/time.h"
#include "sim/engine/lora_config.h"
#include "sim/engine/request_state.h"
#include "sim/model/deployment.h"
#include "sim/model/model_spec.h"

namespace servesim {

// The distinct adapters of a step's batch: those of the running requests, then of each
// request admitted (vLLM's scheduled_loras). Adapter 0 (the base model) takes no slot.
class LoraStepAdapters {
 public:
  LoraStepAdapters(const std::vector<RequestState*>& running, int max_loras);
  // Whether a request naming `adapter` may join: it names none, one already in, or a slot is free.
  bool admits(int adapter) const;
  void add(int adapter);
  int count() const { return static_cast<int>(ids_.size()); }
  // Whether `adapter` is one of them (never the base model's 0).
  bool has(int adapter) const;

 private:
  std::vector<int> ids_;  // at most max_loras (small: a linear scan beats a set)
  int max_loras_;
};

// The adapters in GPU slots (max_loras) and in CPU memory (max_cpu_loras), each an LRU
// cache, as vLLM's LRUCacheWorkerLoRAManager (vllm/lora/worker_manager.py: add_adapter
// loads an adapter missing from the CPU cache from disk, evicting its least recently used)
// and LRUCacheLoRAModelManager (vllm/lora/models.py: activate_adapter copies it into a GPU
// slot, evicting the least recently used active one). The CPU cache holds every adapter the
// GPU does (max_cpu_loras >= max_loras).
class LoraAdapterCache {
 public:
  enum class Where { gpu, cpu, disk };
  explicit LoraAdapterCache(const LoraConfig& config);
  // Makes `adapter` (> 0) resident in a GPU slot, touching it in both caches; returns where
  // it was found.
  Where activate(int adapter);
  bool on_gpu(int adapter) const;
  bool on_cpu(int adapter) const;

 private:
  // Most recently used last; touch moves an id there, insert evicts the front when full.
  static bool touch(std::vector<int>& lru, int adapter);
  static void insert(std::vector<int>& lru, int adapter, int capacity);
  std::vector<int> gpu_;
  std::vector<int> cpu_;
  int gpu_slots_;
  int cpu_slots_;
};

// What loading adapters costs one replica: every GPU of it copies its share of the adapter
// over its own host link; an adapter missing from CPU memory is read from disk first. And
// what the LoRA kernels add to a step (vLLM's punica shrink and expand, one pass per wrapped
// module): 2 x rank x (d_in + d_out) FLOPs per module per token of an adapter's request
// (twice the adapter's parameters, lora_shapes.h), reading each adapter of the step once;
// priced at the GPU's peaks, the larger of the two times (a roofline).
struct LoraLoadCost {
  double adapter_bytes_per_gpu = 0;
  double adapter_bytes = 0;           // the whole replica's
  double host_link_bytes_per_s = 0;   // per GPU (the hardware's host_link_bandwidth_gb_s)
  double disk_bytes_per_s = 0;        // the engine's lora.disk_gb_s
  double flops_per_token_per_gpu = 0; // 0: the LoRA kernels cost nothing
  double peak_flops_per_s = 0;        // the hardware's bf16 peak
  double memory_bytes_per_s = 0;      // the hardware's HBM bandwidth
  Tick load_ns(LoraAdapterCache::Where from) const;
  // The kernels' time for `tokens` tokens of adapters' requests over `adapters` distinct adapters.
  Tick compute_ns(std::int64_t tokens, int adapters) const;
};

// One adapter's bytes over the whole replica: the scenario's adapter_mb, else its parameters
// at max_lora_rank (lora_shapes.h) in the activations' dtype (vLLM's lora_dtype auto).
double lora_adapter_bytes(const ModelSpec& model, const Deployment& deployment, const LoraConfig& config);

}  // namespace servesim
