#pragma once
// A 64-bit mixing function shared by everything that derives hashes or ids from integers
// (prefix block hashes, KV cache keys).
#include <cstdint>

namespace servesim {

// splitmix64's finaliser (Steele, Lea & Flood, OOPSLA 2014): bijective, so distinct inputs
// give distinct outputs, and every input bit reaches every output bit.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace servesim
