// libFuzzer target: the scenario loader (and --set), then building the Simulation.
#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::scenario_input(data, size);
  return 0;
}
