// libFuzzer target: the JSON inputs of `compare` (summary.json, sweep.json) and `merge`.
#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::compare_input(data, size);
  return 0;
}
