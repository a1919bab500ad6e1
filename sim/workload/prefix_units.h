#pragma once
// A whole prefix trace (mooncake or csv) reduced to what a timing-free cache replay needs
// (`servesim cache-curve`): per request, the chained keys of its prompt's blocks at the
// trace's own granularity (512 tokens for Mooncake), each with its token count (the last
// block may be partial: its key covers its length). Held flat, so the conversation trace
// (288,500 blocks) takes a few megabytes.
#include <cstdint>
#include <string>
#include <vector>

namespace servesim {

struct PrefixUnitTrace {
  struct Request {
    std::uint32_t lookup_begin = 0, lookup_end = 0;  // the prompt's blocks: matched as a prefix
    std::uint32_t insert_begin = 0, insert_end = 0;  // the blocks it leaves cached: its prompt,
                                                     // or for a session row prompt + output - 1
    std::int64_t prompt_tokens = 0;
  };
  std::int64_t block_tokens = 512;
  std::vector<std::uint64_t> keys;
  // keys[i] renumbered densely (0 .. distinct_keys - 1), so a replay indexes arrays
  // instead of hashing; filled by assign_dense_ids().
  std::vector<std::uint32_t> ids;
  std::uint32_t distinct_keys = 0;
  std::vector<std::int64_t> tokens;
  std::vector<Request> requests;
  std::int64_t total_prompt_tokens = 0;
};

// Fills `ids` and `distinct_keys` from `keys` (one hash pass for the whole trace).
void assign_dense_ids(PrefixUnitTrace& trace);

// Reads every row (throws ConfigError for a bad row or a format without prefix information).
// `csv_hash_block_tokens`: the csv format's block size (mooncake's is 512).
PrefixUnitTrace read_prefix_units(const std::string& path, const std::string& format,
                                  std::int64_t csv_hash_block_tokens = 512);

}  // namespace servesim
