// libFuzzer target: a `trace.rate_scale` CSV (time_s, scale) over a fixed trace, through load_scenario and the warped source.
#include "tests/fuzz/curve_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::rate_scale_input(data, size);
  return 0;
}
