#pragma once
// One request as a workload source produces it: when it arrives and how long it is.
#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

struct RequestSpec {
  std::uint64_t id = 0;           // unique in the run, in arrival order per source
  int class_index = 0;            // index into the scenario's workload classes
  int priority = 0;               // the class's priority (higher first where policy allows)
  Tick arrival_ns = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0; // 0: prefill-only (embedding) request
  std::uint64_t session_id = 0;   // 0: not part of a session
  int turn = 0;
  // A length drawn for this request was clamped, raised or capped (TokenLengths); counted
  // per class as clamped_input / clamped_output. Traces leave both false.
  bool input_clamped = false;
  bool output_clamped = false;
  // The LoRA adapter the request names (vLLM's lora_int_id); 0: the base model. 16 bits so
  // that it fits the padding after the flags above.
  std::int16_t lora_adapter = 0;
  // Content identity of the prompt, one hash per full KV block (chained: each covers the
  // whole prefix up to its block), for prefix caching. Empty: nothing is shareable. A
  // session's turn continues past the prompt over its output, which the next turn repeats.
  // Blocks are the serving pool's block_size tokens (ClassSpec::block_tokens).
  std::vector<std::uint64_t> block_hashes;
};

}  // namespace servesim
