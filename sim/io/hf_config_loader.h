#pragma once
// Reads the architecture of a dense Llama-style decoder from a Hugging Face config.json
// (hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads,
// intermediate_size, vocab_size, max_position_embeddings, tie_word_embeddings, head_dim).
#include <string>

#include "sim/model/model_spec.h"

namespace servesim {

// Throws ConfigError naming the file and the field for a missing or malformed field, and
// for configs this model cannot represent (mixture-of-experts).
ModelSpec load_hf_config(const std::string& path);

}  // namespace servesim
