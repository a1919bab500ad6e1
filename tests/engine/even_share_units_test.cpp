// EvenShareUnits must give GpuTimeShares::units_from_ns(double(ns) / d) exactly: a decode
// run's GPU-time shares go through it, the step-by-step path through the division, and
// the two must agree to the unit (the shares are summed exactly, then priced).
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "sim/core/rng.h"
#include "sim/engine/request_accounting.h"

namespace even_share_units_test {

using namespace servesim;

std::int64_t by_division(Tick ns, std::int64_t d) {
  return GpuTimeShares::units_from_ns(static_cast<double>(ns) / static_cast<double>(d));
}

TEST_CASE("even share units: the division's result for every step time of a small range and many batch sizes", "[engine]") {
  // Every ns below 5,000 against every d up to 300, and d = 2048k, the only divisors with
  // exact halves (1024 ns / d = k + 1/2 needs d (2k + 1) = 2048 ns: d a multiple of 2048),
  // where units_from_ns rounds up.
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = 1; d <= 300; ++d) divisors.push_back(d);
  for (const std::int64_t d : {2048, 4096, 6144, 10240}) divisors.push_back(d);
  std::int64_t halves = 0;
  for (const std::int64_t d : divisors) {
    const EvenShareUnits units(d);
    for (Tick ns = 0; ns < 5000; ++ns) {
      if ((2048 * ns) % (2 * d) == d) ++halves;
      REQUIRE(units(ns) == by_division(ns, d));
    }
  }
  CHECK(halves > 5000);
}

TEST_CASE("even share units: the division's result for random step times up to 2^40 ns and batches up to 4096", "[engine]") {
  Rng rng(20261207);
  for (int i = 0; i < 2000000; ++i) {
    const std::int64_t d = rng.uniform_int(1, 4096);
    // Step times spread over every scale: 2^0 .. 2^40 ns.
    const int bits = static_cast<int>(rng.uniform_int(0, 40));
    const Tick ns = rng.uniform_int(0, (Tick{1} << bits) - 1);
    REQUIRE(EvenShareUnits(d)(ns) == by_division(ns, d));
  }
  // Beyond the exact range it is the division itself.
  for (const Tick ns : {Tick{1} << 40, (Tick{1} << 45) + 12345, Tick{-5}})
    for (const std::int64_t d : {1, 3, 7, 255, 256})
      CHECK(EvenShareUnits(d)(ns) == by_division(ns, d));
}

TEST_CASE("even share units: hand-worked shares", "[engine]") {
  // 7 ns over 2 decodes: 3.5 ns = 3584 units. 1 ns over 3: 341.33 -> 341. 2 ns over 3:
  // 682.67 -> 683. 3 ns over 2048: exactly 1.5 units -> 2 (half up).
  CHECK(EvenShareUnits(2)(7) == 3584);
  CHECK(EvenShareUnits(3)(1) == 341);
  CHECK(EvenShareUnits(3)(2) == 683);
  CHECK(EvenShareUnits(2048)(3) == 2);
  CHECK(EvenShareUnits(2048)(1) == 1);  // 0.5 -> 1
  CHECK(EvenShareUnits(1)(6'620'000) == std::int64_t{6'620'000} * 1024);
}

}  // namespace even_share_units_test
