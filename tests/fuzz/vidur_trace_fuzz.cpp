// libFuzzer target: the vidur trace reader, through make_source, drained to the end.
#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::trace_input("vidur", data, size);
  return 0;
}
