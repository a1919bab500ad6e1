// libFuzzer target: the csv prefix trace reader (format csv), drained through make_source.
#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::trace_input("csv", data, size);
  return 0;
}
