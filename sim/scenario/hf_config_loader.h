#pragma once
// Reads the architecture of a decoder from a Hugging Face config.json: Llama, Mistral,
// Qwen2 (QKV biases), Mixtral (experts), DeepSeek-V2/V3 (experts, latent attention) and
// Llama-4 (experts with a shared expert, interleaved with dense layers; the text model
// under text_config) (hidden_size, num_hidden_layers, num_attention_heads,
// num_key_value_heads, intermediate_size, vocab_size, max_position_embeddings,
// tie_word_embeddings, head_dim).
#include <string>

#include "sim/model/model_spec.h"

namespace servesim {

// Throws ConfigError naming the file and the field for a missing or malformed field, and
// for configs this model cannot represent (a model_type outside the families above,
// Qwen2-MoE, Qwen3-MoE with mlp_only_layers, moe_layer_freq other than 1, a Llama-4 moe_layers list off the interleave
// pattern). A config without model_type is read by its keys.
ModelSpec load_hf_config(const std::string& path);

}  // namespace servesim
