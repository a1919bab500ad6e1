// The KV tiers' compact index (sim/engine/tier_hash_index.h) against a std::unordered_map
// doing the same inserts, erasures and lookups, including hashes whose 32-bit tags are
// equal, which only the hash a slot holds tells apart.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/engine/tier_hash_index.h"

namespace tier_hash_index_test {

using namespace servesim;

namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// The inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct bits).
std::uint64_t inverse_mod_2_64(std::uint64_t a) {
  std::uint64_t x = a;  // correct to 3 bits for odd a
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

// Slots 0..n-1 hold hashes; the index maps hash -> slot, checked against a map.
void check_against_map(const std::vector<std::uint64_t>& hash_of_slot, int steps) {
  TierHashIndex index;
  const auto slots = static_cast<std::int32_t>(hash_of_slot.size());
  std::vector<bool> held(hash_of_slot.size(), false);
  std::unordered_map<std::uint64_t, std::int32_t> reference;
  const auto hash_of = [&](std::int32_t s) { return hash_of_slot[static_cast<std::size_t>(s)]; };
  std::mt19937_64 rng(7);
  for (int step = 0; step < steps; ++step) {
    const auto s = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(slots));
    const std::uint64_t h = hash_of(s);
    if (held[static_cast<std::size_t>(s)]) {
      index.erase(h, s);
      reference.erase(h);
    } else {
      index.insert(h, s);
      reference.emplace(h, s);
    }
    held[static_cast<std::size_t>(s)] = !held[static_cast<std::size_t>(s)];
    REQUIRE(index.size() == static_cast<std::int64_t>(reference.size()));
    const std::uint64_t probe = hash_of(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(slots)));
    const auto it = reference.find(probe);
    REQUIRE(index.find(probe, hash_of) == (it == reference.end() ? -1 : it->second));
  }
  for (const auto& [hash, slot] : reference) REQUIRE(index.find(hash, hash_of) == slot);
}

}  // namespace

TEST_CASE("tier hash index finds what a map finds under random inserts and erasures", "[engine][kv_tiers]") {
  std::vector<std::uint64_t> hashes(3001);
  for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i] = i * 0x2545f4914f6cdd1dULL + 99;
  check_against_map(hashes, 40000);
}

TEST_CASE("tier hash index copes with small sequential hashes as Mooncake traces give", "[engine][kv_tiers]") {
  std::vector<std::uint64_t> hashes(500);
  for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i] = i;
  check_against_map(hashes, 20000);
}

TEST_CASE("tier hash index tells apart hashes whose tags are equal", "[engine][kv_tiers]") {
  // h + d * golden^-1 mixes to h * golden + d: for d below 2^32 - (h * golden mod 2^32), the
  // high 32 bits (the tag, and so the home) are h's own.
  const std::uint64_t inverse = inverse_mod_2_64(kGolden);
  REQUIRE(inverse * kGolden == 1);
  const std::uint64_t h = 12345ULL * inverse;  // mixes to 12345: room for d below 2^32 - 12345
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t d = 0; d < 40; ++d) hashes.push_back(h + d * inverse);
  for (const std::uint64_t x : hashes) REQUIRE((x * kGolden) >> 32 == (h * kGolden) >> 32);
  check_against_map(hashes, 5000);
}

}  // namespace tier_hash_index_test
