// The pool keys `ep` and `micro_batches` (docs/scenario.md): accepted where they mean
// something, refused at their line where they do not.
#include <catch2/catch.hpp>

#include <string>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/model/shard.h"
#include "sim/scenario/scenario_loader.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::parallelism_keys_test {

namespace {

// kMinimalScenario with its pool's model and tp lines (8 and 10) replaced.
std::string pool_with(const std::string& model, const std::string& tp_and_more) {
  return edit_line(edit_line(kMinimalScenario, 10, tp_and_more), 8, "    - model: " + model);
}

}  // namespace

TEST_CASE("pool keys: ep splits Mixtral experts and micro_batches needs pp", "[model][moe][pipeline]") {
  ScenarioDir dir;
  const Scenario ok = load_scenario(dir.write("ok.yaml", pool_with("mixtral-8x7b", "      tp: 4\n      ep: 4")));
  CHECK(ok.cluster.pools.at(0).deployment.ep == 4);
  const Scenario piped = load_scenario(dir.write("pp.yaml", pool_with("mixtral-8x7b", "      tp: 2\n      pp: 2\n      micro_batches: 4")));
  CHECK(piped.cluster.pools.at(0).deployment.micro_batches == 4);

  const auto error_at = [&](const std::string& file, const std::string& yaml) {
    try {
      load_scenario(dir.write(file, yaml));
    } catch (const ConfigError& e) {
      return std::to_string(e.line()) + " " + e.key() + ": " + e.message();
    }
    return std::string("no error");
  };
  const std::string dense = error_at("dense.yaml", pool_with("llama-3-8b", "      tp: 2\n      ep: 2"));
  CHECK(dense.find("11 ") == 0);  // the ep line
  CHECK(dense.find("needs a mixture-of-experts model") != std::string::npos);
  const std::string uneven = error_at("uneven.yaml", pool_with("mixtral-8x7b", "      tp: 4\n      ep: 3"));
  CHECK(uneven.find("ep=3 must divide tp=4") != std::string::npos);
  const std::string no_pp = error_at("nopp.yaml", pool_with("mixtral-8x7b", "      tp: 2\n      micro_batches: 4"));
  CHECK(no_pp.find("11 ") == 0);
  CHECK(no_pp.find("set pp >= 2") != std::string::npos);
}

}  // namespace servesim::parallelism_keys_test

namespace servesim::parallelism_keys_test {

TEST_CASE("pool keys: activations fp8 is read and anything but bf16 or fp8 is refused at its line", "[model]") {
  ScenarioDir dir;
  const Scenario ok = load_scenario(dir.write("a.yaml", edit_line(kMinimalScenario, 10, "      tp: 1\n      activations: fp8")));
  CHECK(ok.cluster.pools.at(0).deployment.activations == Dtype::fp8);
  try {
    load_scenario(dir.write("b.yaml", edit_line(kMinimalScenario, 10, "      tp: 1\n      activations: int4")));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 11);
  }
}

}  // namespace servesim::parallelism_keys_test

namespace servesim::parallelism_keys_test {

TEST_CASE("pool keys: a dense draft model beside an expert-parallel Mixtral runs without ep", "[model][moe]") {
  ScenarioDir dir;
  // Mistral-7B shares Mixtral's 32000-token vocabulary.
  const std::string yaml = edit_line(
      edit_line(kMinimalScenario, 11,
                "      engine: {policy: continuous, speculative: {draft: mistral-7b, k: 4, acceptance: 0.7}}"),
      10, "      tp: 4\n      ep: 4");
  const Scenario s = load_scenario(dir.write("spec.yaml", edit_line(yaml, 8, "    - model: mixtral-8x7b")));
  CHECK(s.cluster.pools.at(0).deployment.ep == 4);
  const Deployment d = draft_deployment(*s.cluster.pools.at(0).engine.speculative.draft_model,
                                        s.cluster.pools.at(0).deployment);
  CHECK(d.ep == 1);
  CHECK(d.tp == 4);
}

}  // namespace servesim::parallelism_keys_test
