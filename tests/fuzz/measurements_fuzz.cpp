// libFuzzer target: the step-time measurement CSV reader (`calibrate --measurements`).
#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::measurements_input(data, size);
  return 0;
}
