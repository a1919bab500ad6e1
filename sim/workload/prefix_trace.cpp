#include "sim/workload/prefix_trace.h"

#include <algorithm>

#include "sim/core/rng.h"

namespace servesim {
namespace {

// Content keys of the trace formats, apart from every other kind of content.
std::uint64_t id_key(std::uint64_t id) { return hash_combine(stable_hash("trace/block-id"), id); }
std::uint64_t row_key(std::int64_t row) {
  return hash_combine(stable_hash("trace/row"), static_cast<std::uint64_t>(row));
}
std::uint64_t session_key(std::uint64_t session) { return hash_combine(stable_hash("trace/session"), session); }

}  // namespace

std::int64_t shareable_output_tokens(const PrefixTraceRow& row) {
  return row.session_id != 0 && row.hash_ids.empty() ? row.output_tokens : 0;
}

std::vector<ContentRun> prefix_trace_runs(const PrefixTraceRow& row, std::int64_t hash_block_tokens,
                                          std::int64_t extra_output_tokens) {
  std::vector<ContentRun> runs;
  if (!row.hash_ids.empty()) {
    std::int64_t placed = 0;
    for (std::uint64_t id : row.hash_ids) {
      const std::int64_t tokens = std::min(hash_block_tokens, row.prompt_tokens - placed);
      runs.push_back({id_key(id), 0, tokens});
      placed += tokens;
    }
    // Tokens past the last id are this row's own; so is any output.
    const std::int64_t rest = row.prompt_tokens - placed + extra_output_tokens;
    if (rest > 0) runs.push_back({row_key(row.index), 0, rest});
  } else if (row.session_id != 0) {
    runs.push_back({session_key(row.session_id), 0, row.prompt_tokens + extra_output_tokens});
  } else {
    runs.push_back({row_key(row.index), 0, row.prompt_tokens + extra_output_tokens});
  }
  return runs;
}

}  // namespace servesim
