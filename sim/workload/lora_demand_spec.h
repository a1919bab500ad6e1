#pragma once
// Which LoRA adapter a workload class's requests name (docs/lora.md). vLLM serves one base
// model with many adapters; a request names one by its lora_int_id (> 0; vllm/lora/request.py,
// LoRARequest), the base model when it names none (0 here).

namespace servesim {

// Adapters are numbered 1..adapters in every class (two classes with adapters: 4 share them),
// so a class's ids can be shifted with first_adapter to keep classes apart.
struct LoraDemandSpec {
  enum class Distribution { uniform, zipf };
  int adapters = 1;                 // how many distinct adapters the class's requests name
  int first_adapter = 1;            // the lowest id (ids first_adapter .. first_adapter + adapters - 1)
  Distribution distribution = Distribution::uniform;
  double zipf_exponent = 1.0;       // zipf: P(k-th adapter) proportional to 1 / k^exponent
};

}  // namespace servesim
