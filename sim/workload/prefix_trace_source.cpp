#include "sim/workload/prefix_trace_source.h"

#include <cmath>

#include "sim/core/assert.h"
#include "sim/core/errors.h"

namespace servesim {

PrefixTraceSource::PrefixTraceSource(const std::string& path, const std::string& format, double speedup,
                                     std::int64_t hash_block_tokens, std::int64_t block_tokens, int class_index)
    : speedup_(speedup), hash_block_tokens_(hash_block_tokens), block_tokens_(block_tokens), class_index_(class_index) {
  if (!(speedup_ > 0) || !std::isfinite(speedup_)) throw ConfigError(path, 0, "trace.speedup", "must be a positive number");
  SS_ASSERT(hash_block_tokens_ >= 1 && block_tokens_ >= 1, "block sizes");
  // Checking pass: every field and the arrival order, before the run starts.
  const auto check = open_prefix_trace(path, format, hash_block_tokens_);
  std::optional<std::int64_t> previous_ns;
  while (check->next(row_)) {
    if (previous_ns && row_.time_ns < *previous_ns) {
      throw ConfigError(path, check->line(), format == "csv" ? "arrival_s" : "timestamp",
                        "rows must be in arrival order; this row is earlier than the one before it");
    }
    previous_ns = row_.time_ns;
    ++row_count_;
  }
  if (previous_ns && static_cast<double>(*previous_ns) / speedup_ > 9.0e18) {
    throw ConfigError(path, check->line(), "trace.speedup", "arrival times overflow 64-bit nanoseconds at this speedup");
  }
  reader_ = open_prefix_trace(path, format, hash_block_tokens_);
  advance();
}

void PrefixTraceSource::advance() {
  if (!reader_->next(row_)) {
    next_.reset();
    return;
  }
  RequestSpec request;
  request.class_index = class_index_;
  request.arrival_ns = speedup_ == 1.0 ? row_.time_ns
                                       : static_cast<Tick>(std::llround(static_cast<double>(row_.time_ns) / speedup_));
  request.prompt_tokens = row_.prompt_tokens;
  request.output_tokens = row_.output_tokens;
  if (row_.session_id != 0) {
    request.session_id = row_.session_id;
    request.turn = ++turns_[row_.session_id];
  }
  // A row with neither ids nor a session shares nothing: no hashes (the engine gives its
  // blocks private ones).
  if (!row_.hash_ids.empty() || row_.session_id != 0) {
    const auto runs = prefix_trace_runs(row_, hash_block_tokens_, shareable_output_tokens(row_));
    request.block_hashes = chained_block_hashes(runs, block_tokens_);
  }
  next_ = std::move(request);
}

}  // namespace servesim
