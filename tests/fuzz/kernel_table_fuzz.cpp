// libFuzzer target: a kernel table set (gzip or plain CSV), loaded for three pools and read back.
#include "tests/fuzz/kernel_table_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::kernel_table_input(data, size);
  return 0;
}
