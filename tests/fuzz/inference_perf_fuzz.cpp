// libFuzzer target: an inference-perf report folder (per-request, stage and summary JSON, config.yaml), replayed and read as aggregates.
#include "tests/fuzz/benchmark_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::inference_perf_input(data, size);
  return 0;
}
