#pragma once
// The knobs of one replica's serving engine (the scenario's `engine:` block).
#include <cstdint>
#include <optional>
#include <string>

namespace servesim {

struct EngineConfig {
  std::string policy = "chunked-prefill";  // continuous | chunked-prefill | ... (registry)
  int max_num_seqs = 256;                  // running sequences per step
  std::int64_t max_batched_tokens = 8192;  // token budget per step
  int block_size = 16;                     // tokens per KV block
  bool prefix_cache = false;
  std::optional<std::int64_t> kv_cache_tokens;  // overrides the memory-derived capacity
  double gpu_memory_utilization = 0.9;     // vLLM's default
};

}  // namespace servesim
