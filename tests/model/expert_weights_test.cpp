// The pool key `expert_weights`: routed and shared experts in their own format (an
// FP8-dynamic MoE checkpoint: fp8 experts, bf16 attention and router), read from a
// scenario into the deployment, refused for dense models and unknown formats.
#include <catch2/catch.hpp>

#include <string>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/model/shard.h"
#include "sim/scenario/scenario_loader.h"

namespace expert_weights_test {

using namespace servesim;
using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace {

// kMinimalScenario with line 8 (the model) replaced and `extra` after line 10 (tp: 1).
std::string scenario(const std::string& model, const std::string& hardware, const std::string& extra) {
  const std::string with_model = edit_line(kMinimalScenario, 8, "    - model: " + model);
  const std::string with_hw = edit_line(with_model, 9, "      hardware: " + hardware);
  return edit_line(with_hw, 10, "      tp: 1\n" + extra);
}

}  // namespace

TEST_CASE("expert weights: a pool's expert_weights sets the experts' format and shrinks the weights", "[model][scenario]") {
  ScenarioDir dir;
  const Scenario plain = load_scenario(dir.write("plain.yaml", scenario("mixtral-8x7b", "h200", "")));
  const Scenario fp8 = load_scenario(
      dir.write("fp8.yaml", scenario("mixtral-8x7b", "h200", "      expert_weights: fp8")));
  const Deployment& a = plain.cluster.pools.at(0).deployment;
  const Deployment& b = fp8.cluster.pools.at(0).deployment;
  CHECK_FALSE(a.expert_weights.has_value());
  CHECK(a.expert_dtype() == Dtype::bf16);
  REQUIRE(b.expert_weights.has_value());
  CHECK(*b.expert_weights == Dtype::fp8);
  CHECK(b.weights == Dtype::bf16);
  // Mixtral: 32 layers of 8 experts of 3 x 4096 x 14336, one byte each instead of two.
  const ModelSpec& m = fp8.cluster.pools.at(0).model;
  CHECK(weight_bytes_per_gpu(m, a) - weight_bytes_per_gpu(m, b) == 32.0 * 8 * 3 * 4096 * 14336);
}

TEST_CASE("expert weights: refused on a dense model and for an unknown format at the key's line", "[model][scenario]") {
  ScenarioDir dir;
  try {
    load_scenario(dir.write("dense.yaml", scenario("tiny-model.yaml", "tiny-gpu.yaml", "      expert_weights: fp8")));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 11);
    CHECK_THAT(std::string(e.what()), Catch::Contains("mixture-of-experts"));
  }
  try {
    load_scenario(dir.write("fp4.yaml", scenario("mixtral-8x7b", "h200", "      expert_weights: fp4")));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 11);
    CHECK_THAT(std::string(e.what()), Catch::Contains("unknown expert weight format 'fp4'"));
  }
}

}  // namespace expert_weights_test
