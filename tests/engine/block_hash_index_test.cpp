// The prefix cache's open-addressing index (sim/engine/block_hash_index.h) against a
// std::unordered_map doing the same inserts, erasures and lookups.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/engine/block_hash_index.h"

namespace block_hash_index_test {

using namespace servesim;

namespace {

// Runs `steps` random operations on `blocks` blocks whose hashes come from `hash_of`,
// checking every lookup of a present and an absent hash against the reference map.
template <typename HashOf>
void check_against_map(int blocks, int steps, HashOf hash_of) {
  BlockHashIndex index;
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(blocks), 0);
  std::vector<bool> held(static_cast<std::size_t>(blocks), false);
  std::unordered_map<std::uint64_t, std::int32_t> reference;
  std::mt19937_64 rng(42);
  std::uint64_t next = 0;
  for (int step = 0; step < steps; ++step) {
    const auto b = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(blocks));
    const auto i = static_cast<std::size_t>(b);
    if (held[i]) {
      index.erase(hashes[i]);
      reference.erase(hashes[i]);
      held[i] = false;
    } else {
      hashes[i] = hash_of(next++);
      index.insert(hashes[i], b);
      reference.emplace(hashes[i], b);
      held[i] = true;
    }
    REQUIRE(index.size() == static_cast<std::int64_t>(reference.size()));
    const std::uint64_t probe = hash_of(rng() % (next + 1));
    const auto it = reference.find(probe);
    REQUIRE(index.find(probe) == (it == reference.end() ? -1 : it->second));
  }
  for (const auto& [hash, block] : reference) REQUIRE(index.find(hash) == block);
}

}  // namespace

TEST_CASE("block hash index finds what a map finds under random inserts and erasures", "[engine][prefix]") {
  check_against_map(257, 20000, [](std::uint64_t k) { return k * 0x9e3779b97f4a7c15ULL + 12345; });
}

TEST_CASE("block hash index copes with small sequential hashes as Mooncake traces give", "[engine][prefix]") {
  check_against_map(100, 20000, [](std::uint64_t k) { return k; });
}

TEST_CASE("block hash index is full at its capacity and empties again", "[engine][prefix]") {
  const int blocks = 37;
  BlockHashIndex index;
  std::vector<std::uint64_t> hashes(blocks);
  for (int b = 0; b < blocks; ++b) {
    hashes[static_cast<std::size_t>(b)] = 1000 + static_cast<std::uint64_t>(b);
    index.insert(hashes[static_cast<std::size_t>(b)], b);
  }
  CHECK(index.size() == 37);
  CHECK(index.find(1036) == 36);
  CHECK(index.find(1037) == -1);
  for (int b = 0; b < blocks; b += 2) index.erase(hashes[static_cast<std::size_t>(b)]);
  CHECK(index.size() == 18);  // the 18 odd blocks 1, 3, ..., 35
  for (int b = 0; b < blocks; ++b)
    CHECK(index.find(1000 + static_cast<std::uint64_t>(b)) == (b % 2 == 1 ? b : -1));
}

}  // namespace block_hash_index_test
