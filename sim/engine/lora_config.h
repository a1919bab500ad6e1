#pragma once
// Multi-LoRA serving as vLLM does it (docs/lora.md): one base model, adapters in GPU slots.
#include <cstdint>

namespace servesim {

struct LoraConfig {
  bool enabled = false;  // an engine `lora:` block turns it on; off: no per-step LoRA work at all
  // Distinct adapters one step's batch may use (vllm/config/lora.py, LoRAConfig.max_loras,
  // default 1); also the adapters the GPU holds (LRUCacheLoRAModelManager's slots).
  int max_loras = 1;
  // Adapters kept in CPU memory (LoRAConfig.max_cpu_loras; unset: max_loras, and it must not
  // be smaller, LoRAConfig.__post_init__).
  int max_cpu_loras = 1;
  // The rank every GPU slot is sized for (LoRAConfig.max_lora_rank, default 16).
  int max_lora_rank = 16;
  // One adapter's bytes on one GPU, from the model's shapes at max_lora_rank (lora_cost.h)
  // unless the scenario gives adapter_mb; resolved when the pool is built.
  double adapter_bytes = 0;
  bool adapter_bytes_given = false;
  // Bytes per second at which an adapter not in CPU memory is read from disk (the scenario's
  // disk_gb_s; required, since vLLM reads the adapter's safetensors from local storage).
  double disk_bytes_per_s = 0;
};

}  // namespace servesim
