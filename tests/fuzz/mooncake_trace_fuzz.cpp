// libFuzzer target: the mooncake prefix trace reader (format mooncake), drained through make_source.
#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::trace_input("mooncake", data, size);
  return 0;
}
