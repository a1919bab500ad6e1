// The cache-curve replay: hand-computed hits on tiny traces, and the Mooncake traces
// against an independent replay written here (block prefix matching, LRU by last use).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/engine/prefix_cache_replay.h"

namespace prefix_cache_replay_test {

using namespace servesim;

namespace {

// A trace of 4-token blocks named by small integers.
PrefixUnitTrace tiny(const std::vector<std::vector<std::uint64_t>>& requests) {
  PrefixUnitTrace t;
  t.block_tokens = 4;
  for (const auto& blocks : requests) {
    PrefixUnitTrace::Request r;
    r.lookup_begin = r.insert_begin = static_cast<std::uint32_t>(t.keys.size());
    for (std::uint64_t b : blocks) {
      t.keys.push_back(b);
      t.tokens.push_back(4);
    }
    r.lookup_end = r.insert_end = static_cast<std::uint32_t>(t.keys.size());
    r.prompt_tokens = 4 * static_cast<std::int64_t>(blocks.size());
    t.total_prompt_tokens += r.prompt_tokens;
    t.requests.push_back(r);
  }
  assign_dense_ids(t);
  return t;
}

// The independent replay: keys are an FNV-1a hash of the id sequence up to the block, LRU
// order is a std::map from "last use" stamps (request t, block j: t * 2^20 + 2^20 - 1 - j,
// so a request's first block is its most recent) to keys.
struct Reference {
  std::int64_t hit_tokens = 0, prompt_tokens = 0;
};

Reference reference_replay(const std::string& path, std::int64_t capacity) {
  struct Entry {
    std::uint64_t stamp;
    std::int64_t tokens;
  };
  std::unordered_map<std::uint64_t, Entry> cache;
  std::map<std::uint64_t, std::uint64_t> lru;  // stamp -> key
  std::int64_t used = 0;
  Reference out;
  std::ifstream in(path);
  std::string line;
  std::uint64_t t = 0;
  constexpr std::uint64_t kSpan = std::uint64_t{1} << 20;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    const std::int64_t input = j["input_length"].get<std::int64_t>();
    const auto ids = j["hash_ids"].get<std::vector<std::uint64_t>>();
    out.prompt_tokens += input;
    std::vector<std::uint64_t> keys;
    std::vector<std::int64_t> tokens;
    std::uint64_t h = 1469598103934665603ULL;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      for (int byte = 0; byte < 8; ++byte) {
        h ^= (ids[i] >> (8 * byte)) & 0xff;
        h *= 1099511628211ULL;
      }
      keys.push_back(h);
      tokens.push_back(std::min<std::int64_t>(512, input - 512 * static_cast<std::int64_t>(i)));
    }
    for (std::size_t i = 0; i < keys.size() && cache.count(keys[i]); ++i) out.hit_tokens += tokens[i];
    const std::uint64_t now = (t + 1) * kSpan;  // stamps of this request are >= t * kSpan
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::uint64_t stamp = now - 1 - i;
      auto it = cache.find(keys[i]);
      if (it != cache.end()) {
        lru.erase(it->second.stamp);
        it->second.stamp = stamp;
        lru[stamp] = keys[i];
        continue;
      }
      while (used + tokens[i] > capacity && !lru.empty() && lru.begin()->first < t * kSpan) {
        const auto victim = lru.begin();
        used -= cache[victim->second].tokens;
        cache.erase(victim->second);
        lru.erase(victim);
      }
      if (used + tokens[i] > capacity) break;  // does not fit: nor will the rest of the chain
      cache[keys[i]] = Entry{stamp, tokens[i]};
      lru[stamp] = keys[i];
      used += tokens[i];
    }
    ++t;
  }
  return out;
}

}  // namespace

TEST_CASE("cache-curve replay: hits on a tiny trace - computed by hand", "[prefix]") {
  // A = [1, 2], B = [1, 3], C = [1, 2]; blocks of 4 tokens, 24 prompt tokens in all.
  const PrefixUnitTrace t = tiny({{1, 2}, {1, 3}, {1, 2}});
  // Unlimited: B hits block 1, C hits blocks 1 and 2.
  CHECK(replay_prefix_cache(t, kUnlimitedCacheTokens).hit_tokens == 4 + 8);
  // 8 tokens: B evicts A's block 2 for its block 3, so C hits block 1 only.
  CHECK(replay_prefix_cache(t, 8).hit_tokens == 4 + 4);
  // 4 tokens: only block 1 ever fits.
  CHECK(replay_prefix_cache(t, 4).hit_tokens == 4 + 4);
  CHECK(replay_prefix_cache(t, 0).hit_tokens == 0);
  const CacheCurvePoint p = replay_prefix_cache(t, kUnlimitedCacheTokens);
  CHECK(p.prompt_tokens == 24);
  CHECK(p.hit_ratio == Approx(0.5));
}

TEST_CASE("cache-curve replay: a chain loses its tail before its head", "[prefix]") {
  // A = [1, 2, 3] fills 12 tokens; D = [4] needs one block: it evicts A's block 3 (the
  // least recent: A's first block was its most recently used), so A again hits [1, 2].
  const PrefixUnitTrace t = tiny({{1, 2, 3}, {4}, {1, 2, 3}});
  CHECK(replay_prefix_cache(t, 12).hit_tokens == 8);
}

TEST_CASE("cache-curve replay: per-replica caches under a routing choice", "[prefix]") {
  // Four identical requests over two replicas, alternately: each replica misses once.
  const PrefixUnitTrace t = tiny({{1, 2}, {1, 2}, {1, 2}, {1, 2}});
  const auto alternate = [](std::size_t i, std::span<const std::int64_t>) { return static_cast<int>(i % 2); };
  CHECK(replay_prefix_cache(t, kUnlimitedCacheTokens, 2, alternate).hit_tokens == 16);
  // Routing to the replica with the longest cached prefix misses only the first time.
  const auto longest = [](std::size_t, std::span<const std::int64_t> c) { return c[1] > c[0] ? 1 : 0; };
  CHECK(replay_prefix_cache(t, kUnlimitedCacheTokens, 2, longest).hit_tokens == 24);
}

TEST_CASE("cache-curve replay: the Mooncake traces match an independent replay", "[prefix]") {
  for (const char* name : {"mooncake_fast25_conversation_trace.jsonl", "mooncake_fast25_synthetic_trace.jsonl"}) {
    const std::string path = std::string(SERVESIM_SOURCE_DIR) + "/data/traces/" + name;
    const PrefixUnitTrace trace = read_prefix_units(path, "mooncake");
    for (std::int64_t size : {std::int64_t{0}, std::int64_t{200'000}, std::int64_t{1'000'000},
                              std::int64_t{5'000'000}, kUnlimitedCacheTokens}) {
      INFO(name << " at " << size << " tokens");
      const CacheCurvePoint got = replay_prefix_cache(trace, size);
      const Reference want = reference_replay(path, size);
      CHECK(got.prompt_tokens == want.prompt_tokens);
      CHECK(got.hit_tokens == want.hit_tokens);
    }
  }
  // The unlimited cache of the conversation trace: 37.36% of prompt tokens (data/SOURCES.md).
  const auto conv = read_prefix_units(std::string(SERVESIM_SOURCE_DIR) +
                                          "/data/traces/mooncake_fast25_conversation_trace.jsonl", "mooncake");
  CHECK(replay_prefix_cache(conv, kUnlimitedCacheTokens).hit_ratio == Approx(0.3736).margin(5e-5));
}

}  // namespace prefix_cache_replay_test
