#pragma once
// What a prompt is made of, and the chained block hashes that identify its prefixes for
// prefix caching (docs/prefix-caching.md, "Hashing").
//
// The simulator never sees tokens. A token sequence is described as runs of named content:
// run {key, offset, tokens} is tokens [offset, offset + tokens) of the content named `key`
// (a shared system prompt, document 17 of pool "docs", one request's unique question, one
// session's history). Two token positions hold the same token iff they have the same key
// and offset. The hash of block j covers the hash of block j-1 and the (key, offset) pieces
// of its own tokens, as vLLM's block hash covers the parent hash and the block's token ids:
// equal hashes mean equal prefixes, and one different token early on changes every later
// hash, exactly as in a real prefix cache.
#include <cstdint>
#include <span>
#include <vector>

namespace servesim {

struct ContentRun {
  std::uint64_t key = 0;     // which content
  std::int64_t offset = 0;   // first token of it used here
  std::int64_t tokens = 0;   // how many (runs of 0 tokens are ignored)
};

// The chained hash of every FULL block of `block_tokens` tokens of the sequence `runs`
// describes (a partial last block has none). Adjacent runs that continue one another (same
// key, consecutive offsets) hash as one run, so how a sequence is cut into runs never
// changes its hashes. Cost: O(blocks + runs). REQUIRES: block_tokens >= 1.
// With `partial_last`, a partial last block gets a hash too (it covers its length, so it
// never equals a longer block's). Only the first kMaxHashedTokens tokens are hashed: a
// longer sequence exceeds every model's context (its request is rejected), and hashing it
// whole would cost memory in proportion to a length drawn from a long-tailed distribution.
inline constexpr std::int64_t kMaxHashedTokens = std::int64_t{1} << 22;  // 4,194,304
std::vector<std::uint64_t> chained_block_hashes(std::span<const ContentRun> runs, std::int64_t block_tokens,
                                                bool partial_last = false);

// Total tokens of `runs`.
std::int64_t total_tokens(std::span<const ContentRun> runs);

// A well-mixed combination of two 64-bit values (for content keys: pool name + document).
std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value);

}  // namespace servesim
