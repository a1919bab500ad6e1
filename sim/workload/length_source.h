#pragma once
// Where a source gets the token lengths of its requests: sampled from distributions
// (sampled_lengths.h) or read row by row from a length-only file (lengths_file.h). The
// arrival side (open-loop process or closed loop) is independent of it, so any arrival
// pattern combines with any length origin.
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/workload/request.h"

namespace servesim {

struct TokenLengths {
  std::int64_t prompt_tokens = 0;  // at least 1
  std::int64_t output_tokens = 0;  // at least 0 (0: prefill-only request)
  // Chained prefix hashes of the prompt's full blocks (structured prompts); empty when the
  // prompt shares nothing (RequestSpec::block_hashes).
  std::vector<std::uint64_t> block_hashes;
  // Whether a drawn length was changed on its way here: clamped by the spec's min/max,
  // raised to the floor above, or capped (sampled_lengths.h, draw_tokens). Files never
  // change a length (they reject bad rows), so theirs are false.
  bool prompt_clamped = false;
  bool output_clamped = false;
};

// The request of class `class_index` arriving at `arrival_ns` with these lengths (its
// hashes moved in): what a sampled source (open or closed loop) offers.
inline RequestSpec request_with_lengths(TokenLengths&& lengths, int class_index, Tick arrival_ns) {
  RequestSpec request;
  request.class_index = class_index;
  request.arrival_ns = arrival_ns;
  request.prompt_tokens = lengths.prompt_tokens;
  request.output_tokens = lengths.output_tokens;
  request.input_clamped = lengths.prompt_clamped;
  request.output_clamped = lengths.output_clamped;
  request.block_hashes = std::move(lengths.block_hashes);
  return request;
}

class LengthSource {
 public:
  virtual ~LengthSource() = default;
  // Whether next() can be called; false once a file has been used up.
  virtual bool has_next() = 0;
  // The lengths of the next request. REQUIRES: has_next().
  virtual TokenLengths next() = 0;
  // How many sampled prompt lengths were below 1 and raised to 1 (0 for files, which reject
  // such rows instead). The per-class count a run reports is summary.json's clamped_input.
  virtual std::uint64_t raised_input_samples() const { return 0; }
};

}  // namespace servesim
