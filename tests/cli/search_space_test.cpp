// The space file of `servesim search` (sim/study/search_space.h): values as --set text, where
// each is written, and the errors a malformed file gets.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/search_space.h"

namespace search_space_test {

using namespace servesim;
using servesim::testing::TempDir;

TEST_CASE("search space: keys keep their order and values become one-line YAML", "[search]") {
  TempDir dir("space-parse");
  const auto path = dir.write("space.yaml",
                              "cluster.pools.0.replicas: [1, 2]\n"
                              "cluster.pools.0.cost_model:\n"
                              "  - constant: {step: 5ms}\n"
                              "  - {linear: {base: 1ms, per_token: 0.1ms}}\n");
  const SearchSpace s = load_search_space(path.string());
  REQUIRE(s.axes.size() == 2);
  CHECK(s.axes[0].key == "cluster.pools.0.replicas");
  CHECK(s.axes[0].values == std::vector<std::string>{"1", "2"});
  CHECK(s.axes[1].key == "cluster.pools.0.cost_model");
  CHECK(s.axes[1].values == std::vector<std::string>{"{constant: {step: 5ms}}", "{linear: {base: 1ms, per_token: 0.1ms}}"});
  // Line and column (1-based) of each value: the second list is in block style.
  CHECK(s.value_marks[0][1].line == 1);
  CHECK(s.value_marks[0][1].column == 31);
  CHECK(s.value_marks[1][0].line == 3);
  CHECK(s.value_marks[1][0].column == 5);
  CHECK(s.value_marks[1][1].line == 4);
  CHECK(space_axis_of_key(s, "cluster.pools.0.cost_model.constant.step") == 1);
  CHECK(space_axis_of_key(s, "cluster.pools.0.replicas") == 0);
  CHECK(space_axis_of_key(s, "cluster.pools.0.replicasx") == -1);
}

TEST_CASE("search space: the bundled quickstart space holds 32 candidates that all load", "[search]") {
  const std::string root = SERVESIM_SOURCE_DIR;
  const SearchSpace s = load_search_space(root + "/scenarios/spaces/quickstart.yaml");
  REQUIRE(s.axes.size() == 3);
  CHECK(sweep_point_count(s.axes, SweepMode::product) == 32);
  for (std::size_t p = 0; p < 32; p += 7)
    CHECK_NOTHROW(load_scenario(root + "/scenarios/quickstart.yaml", sweep_point_overrides(s.axes, SweepMode::product, p)));
}

TEST_CASE("search space: malformed files are rejected with their line", "[search]") {
  TempDir dir("space-bad");
  const auto fails_with = [&](const std::string& text, const std::string& needle, int line) {
    const auto path = dir.write("bad.yaml", text);
    try {
      load_search_space(path.string());
      FAIL("accepted: " << text);
    } catch (const ConfigError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
      CHECK(e.line() == line);
    }
  };
  fails_with("- 1\n- 2\n", "a search space is a mapping", 1);
  fails_with("a.b: [1]\nc: 2\n", "expected a list of candidate values", 2);
  fails_with("a.b: []\n", "the list of candidate values is empty", 1);
  fails_with("a..b: [1]\n", "empty part between dots", 1);
  fails_with("a: [1, ~]\n", "a candidate value is empty", 1);
  fails_with("a: [1\n", "YAML syntax error", 2);
  // 11 x 10 x 10 x 10 = 11,000 > 10,000.
  std::string big = "a: [0,1,2,3,4,5,6,7,8,9,10]\n";
  for (const char* k : {"b", "c", "d"}) big += std::string(k) + ": [0,1,2,3,4,5,6,7,8,9]\n";
  fails_with(big, "more than 10000 candidates", 0);
}

}  // namespace search_space_test
