#pragma once
// Seeded random streams. Each component draws from its own stream, derived from the run
// seed and a stable stream name, so adding a component never shifts another's numbers.
// The generator (xoshiro256**) and every sampling formula are our own code rather than
// <random>'s distributions, whose output differs between standard libraries.
#include <cstdint>
#include <string_view>

namespace servesim {

class Rng {
 public:
  // A stream identified by (seed, name); equal arguments give equal sequences.
  Rng(std::uint64_t seed, std::string_view stream_name);
  explicit Rng(std::uint64_t raw_seed);

  std::uint64_t next_u64();
  // Uniform in [0, 1), 53 random bits.
  double uniform01();
  // Uniform in (0, 1]: safe to take the log of.
  double uniform_open0();
  // Uniform integer in [lo, hi]. REQUIRES: lo <= hi.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  // Standard normal (Box-Muller; the second value is kept for the next call).
  double normal();
  // Exponential with the given mean. REQUIRES: mean > 0.
  double exponential(double mean);
  // Gamma(shape, scale) by Marsaglia-Tsang. REQUIRES: shape > 0, scale > 0.
  double gamma(double shape, double scale);

 private:
  std::uint64_t s_[4];
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

// Stable 64-bit hash of a string (FNV-1a), used to name streams.
std::uint64_t stable_hash(std::string_view text);

}  // namespace servesim
