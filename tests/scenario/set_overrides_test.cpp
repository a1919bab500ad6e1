// --set KEY=VALUE: overrides land in the tree before validation, are validated like file
// values, and errors in them point at "--set" and the key.
#include "sim/scenario/set_overrides.h"

#include <catch2/catch.hpp>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::set_overrides_test {
namespace {

Scenario load_with(const std::vector<std::string>& sets) {
  ScenarioDir dir;
  return load_scenario(dir.write("s.yaml", kMinimalScenario), sets);
}

ConfigError error_with(const std::vector<std::string>& sets) {
  try {
    load_with(sets);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for the overrides");
  throw;  // unreachable: FAIL throws
}

TEST_CASE("set overrides: a scalar inside a list item replaces the file's value", "[scenario]") {
  const Scenario s = load_with({"cluster.pools.0.replicas=4", "workload.0.arrival.rate=8"});
  CHECK(s.cluster.pools[0].replicas == 4);
  CHECK(s.workload[0].arrival->rate_per_s == 8.0);
  CHECK(s.workload[0].input->a == 100.0);  // untouched neighbours stay
}

TEST_CASE("set overrides: a value is YAML - so a whole distribution can be swapped in", "[scenario]") {
  const Scenario s = load_with({"workload.0.input={lognormal: {median: 500, sigma: 1.5}}"});
  REQUIRE(s.workload[0].input);
  CHECK(s.workload[0].input->kind == DistSpec::Kind::lognormal);
  CHECK(s.workload[0].input->a == 500.0);
  CHECK(s.workload[0].input->b == 1.5);
}

TEST_CASE("set overrides: a missing key is created - mappings along the path too", "[scenario]") {
  const Scenario s = load_with({"stop.requests=100", "cluster.pools.0.engine.prefix_cache=true",
                                "seed=42", "cluster.pools.0.classes=[chat]"});
  REQUIRE(s.stop.requests);
  CHECK(*s.stop.requests == 100);
  CHECK(s.cluster.pools[0].engine.prefix_cache);
  CHECK(s.cluster.pools[0].engine.policy == "continuous");  // the rest of engine stays
  CHECK(s.seed == 42);
  CHECK(s.cluster.pools[0].classes == std::vector<std::string>{"chat"});
}

TEST_CASE("set overrides: the last override of a key wins", "[scenario]") {
  const Scenario s = load_with({"cluster.pools.0.replicas=4", "cluster.pools.0.replicas=6"});
  CHECK(s.cluster.pools[0].replicas == 6);
}

TEST_CASE("set overrides: a list index out of range names --set and the key", "[scenario]") {
  // The override itself is bad: an option error (no file, --set as the key, the key first).
  const ConfigError e = error_with({"cluster.pools.3.replicas=2"});
  CHECK(e.file().empty());
  CHECK(e.line() == 0);
  CHECK(e.key() == "--set");
  CHECK(e.message() == "cluster.pools.3.replicas: index 3 is out of range: the list has 1 item(s)");
  CHECK(std::string(e.what()) == "--set: cluster.pools.3.replicas: index 3 is out of range: the list has 1 item(s)");
  const auto set = set_error_of(e);
  REQUIRE(set);
  CHECK(set->key == "cluster.pools.3.replicas");
  CHECK(set->message == "index 3 is out of range: the list has 1 item(s)");
}

TEST_CASE("set overrides: an overridden value the loader refuses is a --set error of its key too", "[scenario]") {
  const ConfigError e = error_with({"workload.0.arrival.rate=fast"});
  const auto set = set_error_of(e);
  REQUIRE(set);
  CHECK(set->key == "workload.0.arrival.rate");
  CHECK(set->message == e.message());
  // Neither an option error of another option nor a file's error is one.
  CHECK_FALSE(set_error_of(option_error("--axis", "seed", "is given as an axis twice")));
  CHECK_FALSE(set_error_of(ConfigError("s.yaml", 3, "seed", "expected a number")));
}

TEST_CASE("set overrides: a bad overridden value is reported at --set with its key", "[scenario]") {
  const ConfigError e = error_with({"workload.0.arrival.rate=fast"});
  CHECK(e.file() == "--set");
  CHECK(e.line() == 0);
  CHECK(e.key() == "workload.0.arrival.rate");
  CHECK_THAT(e.message(), Catch::Contains("expected a number, got 'fast'"));
}

TEST_CASE("set overrides: an error inside an overridden mapping keeps the full key", "[scenario]") {
  const ConfigError e = error_with({"workload.0.input={lognormal: {median: 5, sigma: -1}}"});
  CHECK(e.file() == "--set");
  CHECK(e.key() == "workload.0.input.lognormal.sigma");
}

TEST_CASE("set overrides: a created key that is misspelt gets a suggestion", "[scenario]") {
  const ConfigError e = error_with({"cluster.pools.0.replica=4"});
  CHECK(e.file() == "--set");
  CHECK(e.key() == "cluster.pools.0.replica");
  CHECK_THAT(e.message(), Catch::Contains("did you mean 'replicas'?"));
}

TEST_CASE("set overrides: an unknown key created with its parents is blamed on --set", "[scenario]") {
  const ConfigError e = error_with({"clustr.router=round-robin"});
  CHECK(e.file() == "--set");
  CHECK(e.key() == "clustr");
  CHECK_THAT(e.message(), Catch::Contains("did you mean 'cluster'?"));
  // A list index under a missing key cannot be created; the near miss is still named.
  const ConfigError list = error_with({"clustr.pools.0.replicas=4"});
  CHECK(list.key() == "--set");
  CHECK(list.message() ==
        "clustr.pools.0.replicas: index 0 is out of range: 'clustr.pools' has no list; did you mean 'cluster'?");
}

TEST_CASE("set overrides: errors elsewhere still point into the file", "[scenario]") {
  ScenarioDir dir;
  const std::string path = dir.write("s.yaml", edit_line(kMinimalScenario, 10, "      tp: 5"));
  try {
    load_scenario(path, {"cluster.pools.0.replicas=2"});
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.file() == path);
    CHECK(e.line() == 10);
    CHECK(e.key() == "cluster.pools.0.tp");
  }
}

TEST_CASE("set overrides: malformed overrides are usage errors naming the text", "[scenario]") {
  CHECK_THROWS_WITH(parse_override("cluster.pools.0.replicas"),
                    Catch::Contains("expected KEY=VALUE"));
  CHECK_THROWS_WITH(parse_override("=4"), Catch::Contains("the key before '=' is empty"));
  CHECK_THROWS_WITH(parse_override("cluster..router=x"), Catch::Contains("empty part"));
  const Override o = parse_override("a.b=x=y");  // only the first '=' splits
  CHECK(o.key == "a.b");
  CHECK(o.value == "x=y");

  const ConfigError not_list = error_with({"workload.first.input=5"});
  CHECK(not_list.key() == "--set");
  CHECK(not_list.message().rfind("workload.first.input: ", 0) == 0);
  CHECK_THAT(not_list.message(),
             Catch::Contains("'workload' is a list, so 'first' must be an index"));
  const ConfigError bad_yaml = error_with({"workload.0.input={fixed: 5"});
  CHECK_THAT(bad_yaml.message(), Catch::Contains("is not valid YAML"));
  const ConfigError under_scalar = error_with({"cluster.router.name=x"});
  CHECK_THAT(under_scalar.message(), Catch::Contains("is a single value"));
}

TEST_CASE("set overrides: apply_override edits a bare YAML tree in place", "[scenario]") {
  YAML::Node root = YAML::Load("a: {list: [1, 2, 3]}\n");
  CHECK(apply_override(root, parse_override("a.list.02=9")) == "a.list.2");  // canonical index
  CHECK(root["a"]["list"][2].as<int>() == 9);
  CHECK(root["a"]["list"][0].as<int>() == 1);
  // Everything under a created "b" came from --set, so "b" is what the loader blames.
  CHECK(apply_override(root, parse_override("b.c.d=hello")) == "b");
  CHECK(root["b"]["c"]["d"].as<std::string>() == "hello");
}

}  // namespace
}  // namespace servesim::set_overrides_test
