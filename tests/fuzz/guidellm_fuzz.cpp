// libFuzzer target: a GuideLLM report JSON, replayed as a trace and read as aggregates.
#include "tests/fuzz/benchmark_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::benchmark_file_input("guidellm", data, size);
  return 0;
}
