// libFuzzer target: an `arrival.rate_curve` CSV (time_s, rate), through load_scenario and the class's source.
#include "tests/fuzz/curve_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::rate_curve_input(data, size);
  return 0;
}
