// engine/memory_fit.h: what makes a model that does not fit fit, found by re-running the
// memory plan, against the weight bytes per GPU worked out from the model's size.
#include <catch2/catch.hpp>

#include "sim/engine/memory_fit.h"
#include "sim/scenario/model_loader.h"

namespace memory_fit_test {

using namespace servesim;

TEST_CASE("memory fit: Llama-3-70B on one 80 GiB H100 fits at tp 2 or in fp8 or int4 at tp 1",
          "[engine][servability]") {
  const ModelSpec model = load_model("llama-3-70b");
  const HardwareSpec hw = load_hardware("h100-sxm");
  const EngineConfig engine;  // flat rule, utilisation 0.9, 8192 batched tokens
  const MemoryPlan one = plan_memory(model, hw, Deployment{}, engine);
  REQUIRE_FALSE(one.fits);
  // Usable: 80 GiB x 0.9 = 77.3e9 bytes. The bf16 weights, 2 bytes x 70.6e9 parameters =
  // 141e9, exceed it on one GPU; halved by tp 2 they are 70.6e9, and with the reserve
  // (1 GiB + 8192 x 2 x (2 x 8192 + 3 x 28672 / 2) = 2.05e9) 72.6e9 leave 4.7e9 for KV.
  const double usable = hw.memory_bytes * 0.9;
  const double weights = model.weight_bytes(Dtype::bf16);
  CHECK(weights > usable);
  CHECK(weights / 2 + 2.05e9 < usable);
  const MemoryFitAdvice advice = advise_memory_fit(model, hw, Deployment{}, engine);
  CHECK(advice.tp == 2);
  CHECK_FALSE(advice.pp.has_value());  // tried only when no tp fits
  // fp8 (1 byte) and int4 (half a byte) weights at tp 1: 70.6e9 or less, + 2.0e9 reserve.
  CHECK(advice.weights == std::vector<Dtype>{Dtype::fp8, Dtype::int4});
  CHECK_THAT(advice.text, Catch::StartsWith("set tp: 2, the smallest tp at which it fits (weights 6"));
  CHECK_THAT(advice.text, Catch::Contains("; or weights: fp8 at tp 1"));
  const std::string message = does_not_fit_message(model, hw, Deployment{}, engine, one);
  CHECK_THAT(message, Catch::StartsWith("the model does not fit: per GPU: 80 GiB"));
  CHECK_THAT(message, Catch::Contains("; set tp: 2"));
}

TEST_CASE("memory fit: a GPU too small for any tp says so", "[engine][servability]") {
  const ModelSpec model = load_model("llama-3.1-405b");
  HardwareSpec hw = load_hardware("h100-sxm");
  hw.memory_bytes = 1024.0 * 1024 * 1024;  // 1 GiB: the fixed 1 GiB reserve alone fills it
  const MemoryFitAdvice advice = advise_memory_fit(model, hw, Deployment{}, EngineConfig{});
  CHECK_FALSE(advice.tp.has_value());
  CHECK_FALSE(advice.pp.has_value());
  CHECK(advice.weights.empty());
  CHECK_THAT(advice.text, Catch::Contains("no tp or pp up to 64 and no smaller weight format fits"));
}

}  // namespace memory_fit_test
