// libFuzzer target: the model loader given a Hugging Face config.json.
#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  servesim::fuzz::hf_config_input(data, size);
  return 0;
}
