#pragma once
// The size of a LoRA adapter of a dense transformer (docs/lora.md): vLLM wraps each
// attention projection (q, k, v, o) and MLP projection (gate, up, down) of every layer
// with A (d_in x rank) and B (rank x d_out) matrices (vllm/lora/layers; the slots are sized
// for max_lora_rank whatever an adapter's own rank). A token through one module costs the
// shrink x.A (2 rank d_in FLOPs) and the expand (x.A).B (2 rank d_out FLOPs), so a token's
// LoRA FLOPs are twice the adapter's parameters.
#include "sim/model/model_spec.h"

namespace servesim {

// Parameters of one adapter of `rank` over all layers; 0 for a model with MoE layers, whose
// expert adapters are not modelled (the scenario gives adapter_mb instead).
double lora_adapter_params(const ModelSpec& model, int rank);

}  // namespace servesim
