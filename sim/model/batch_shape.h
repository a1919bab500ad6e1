#pragma once
// What one engine step computes, as the cost model sees it. Built by the scheduler.
#include <cstdint>
#include <vector>

namespace servesim {

// N new prompt tokens of one sequence attending over `past_tokens` already in the KV cache
// (cached prefix or earlier chunks) and causally over themselves.
struct PrefillChunk {
  std::int64_t new_tokens = 0;
  std::int64_t past_tokens = 0;
  bool sampled = true;  // the chunk ends the prompt, so lm_head runs on its last token
};

struct BatchShape {
  std::vector<PrefillChunk> prefills;
  // Decode sequences each compute one new token. `decode_context_sum` is the sum over those
  // sequences of the tokens already in their KV cache (the new token attends to these and
  // to itself).
  std::int64_t decode_seqs = 0;
  std::int64_t decode_context_sum = 0;
  // Rows that reach lm_head beyond one per sampled chunk and per decode: speculative
  // decoding's verify pass, priced as a (k+1)-token chunk, samples all k+1 positions.
  std::int64_t extra_sampled_tokens = 0;

  std::int64_t prefill_tokens() const {
    std::int64_t n = 0;
    for (const auto& c : prefills) n += c.new_tokens;
    return n;
  }
  // Tokens computed this step (every row that goes through the GEMMs).
  std::int64_t total_tokens() const { return prefill_tokens() + decode_seqs; }
  bool empty() const { return prefills.empty() && decode_seqs == 0; }
};

}  // namespace servesim
