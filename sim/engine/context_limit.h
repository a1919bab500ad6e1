#pragma once
// A request longer than the model's context (prompt + output > max_context_tokens), as the
// engine's on_context_overflow says: rejected, or truncated the way an API server caps
// max_tokens (docs/engine.md, "Context limit").
#include <cstdint>

#include "sim/engine/engine_config.h"
#include "sim/engine/request_state.h"

namespace servesim {

// Applies the rule to `request` (max_context_tokens <= 0: no limit). Returns the reject
// reason, or nullptr if the request stays (truncated_tokens says by how much it was cut).
const char* apply_context_limit(RequestState& request, std::int64_t max_context_tokens, const EngineConfig& config);

}  // namespace servesim
