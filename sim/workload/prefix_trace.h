#pragma once
// Traces that say what their prompts share (docs/prefix-caching.md, "Trace formats"):
//
//   mooncake  JSON lines, one request each: {"timestamp": ms since the trace start,
//             "input_length": N, "output_length": M, "hash_ids": [ids]}, one id per
//             512-token block of the prompt (the last may be partial); equal leading ids
//             mean an equal prefix (Mooncake, FAST'25).
//   csv       the project's format: columns arrival_s (seconds from the trace start),
//             input_tokens, output_tokens, and optionally session_id (empty or a whole
//             number >= 1) and prefix_hashes (ids separated by spaces or ';', one per
//             `hash_block_tokens`-token block, 512 unless the trace spec says otherwise).
//
// A row's prompt becomes content runs (block_hashing.h): block i with id h is content
// hash(h) for its tokens; prompt tokens past the last id are unique to the row. A csv row
// with a session id and no ids is the session's history so far: the prompt is the first
// input_tokens tokens of one stream per session, and its output continues that stream, so
// a later turn hits everything an earlier turn computed.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/workload/block_hashing.h"

namespace servesim {

struct PrefixTraceRow {
  std::int64_t time_ns = 0;  // since the trace start
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  std::uint64_t session_id = 0;        // 0: none
  std::vector<std::uint64_t> hash_ids; // at most ceil(prompt / hash_block_tokens)
  std::int64_t index = 0;              // 0-based row number, for row-private content
};

class PrefixTraceReader {
 public:
  virtual ~PrefixTraceReader() = default;
  // Reads the next row; false at the end. Throws ConfigError naming file:line and the key.
  virtual bool next(PrefixTraceRow& row) = 0;
  // 1-based line of the last row read.
  virtual int line() const = 0;
  virtual const std::string& path() const = 0;
};

// format: "mooncake" or "csv". Throws ConfigError when the file cannot be opened or (csv) a
// required column is missing.
std::unique_ptr<PrefixTraceReader> open_prefix_trace(const std::string& path, const std::string& format,
                                                     std::int64_t hash_block_tokens);

// The hash block size a format uses: 512 for mooncake, `csv_hash_block_tokens` for csv.
std::int64_t trace_hash_block_tokens(const std::string& format, std::int64_t csv_hash_block_tokens);

// Content of a row's prompt followed by `extra_output_tokens` of its output (0 unless the
// output is content later rows may share, i.e. a session stream), as runs.
std::vector<ContentRun> prefix_trace_runs(const PrefixTraceRow& row, std::int64_t hash_block_tokens,
                                          std::int64_t extra_output_tokens);
// How many output tokens of a row are shareable content (session rows without ids: all).
std::int64_t shareable_output_tokens(const PrefixTraceRow& row);

}  // namespace servesim
