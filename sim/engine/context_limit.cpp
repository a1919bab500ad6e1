#include "sim/engine/context_limit.h"

#include <algorithm>

namespace servesim {

const char* apply_context_limit(RequestState& r, std::int64_t max_context_tokens, const EngineConfig& config) {
  RequestSpec& s = r.spec;
  if (max_context_tokens <= 0 || s.prompt_tokens + s.output_tokens <= max_context_tokens) return nullptr;
  if (config.on_context_overflow == ContextOverflow::reject) return "exceeds_max_context";
  // truncate: the output gives way first (as an API server caps max_tokens at what the
  // context leaves); a prompt that alone fills the context keeps its first tokens and room
  // for one output token.
  const std::int64_t before = s.prompt_tokens + s.output_tokens;
  if (s.prompt_tokens < max_context_tokens) {
    s.output_tokens = max_context_tokens - s.prompt_tokens;
  } else {
    s.output_tokens = std::min<std::int64_t>(s.output_tokens, 1);
    s.prompt_tokens = max_context_tokens - s.output_tokens;
    // Hashes of blocks past the new end no longer describe the prompt.
    const auto full_blocks = static_cast<std::size_t>(s.prompt_tokens / config.block_size);
    if (s.block_hashes.size() > full_blocks) s.block_hashes.resize(full_blocks);
  }
  r.truncated_tokens = before - (s.prompt_tokens + s.output_tokens);
  return nullptr;
}

}  // namespace servesim
