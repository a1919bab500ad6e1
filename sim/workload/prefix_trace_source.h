#pragma once
// A mooncake or csv trace replayed with its own timestamps, each request carrying the block
// hashes its prefix information implies (prefix_trace.h). Like CsvTraceSource it makes one
// checking pass over the file first (every field, arrival order), then streams the requests
// one row ahead of the simulation. Session rows get their turn number (1, 2, ... per
// session id, in file order). Arrivals are open loop: a session's next turn arrives at its
// timestamp whether or not the previous turn has finished.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "sim/workload/prefix_trace.h"
#include "sim/workload/lookahead_source.h"

namespace servesim {

class PrefixTraceSource : public LookaheadSource {
 public:
  // arrival_ns = time_ns / speedup, rounded to the nearest ns. `block_tokens`: the serving
  // pool's KV block size, the granularity of the hashes. Throws ConfigError for a bad row,
  // a row earlier than the one before it, or speedup <= 0.
  PrefixTraceSource(const std::string& path, const std::string& format, double speedup,
                    std::int64_t hash_block_tokens, std::int64_t block_tokens, int class_index);

  std::int64_t row_count() const { return row_count_; }

 private:
  void advance() override;

  std::unique_ptr<PrefixTraceReader> reader_;
  double speedup_;
  std::int64_t hash_block_tokens_;
  std::int64_t block_tokens_;
  int class_index_;
  std::int64_t row_count_ = 0;
  std::unordered_map<std::uint64_t, int> turns_;  // session id -> turns seen
  PrefixTraceRow row_;                            // reused
};

}  // namespace servesim
