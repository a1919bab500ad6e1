// Loading structured prompts, sessions and prefix traces: docs/prefix-caching.md's example lands in
// the right fields, and the repo's prefix-caching scenario validates.
#include <catch2/catch.hpp>

#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/scenario_summary.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::prompt_parse_test {

TEST_CASE("prompt parse: the prompt and session example of docs/prefix-caching.md loads", "[prefix]") {
  ScenarioDir dir;
  const std::string yaml = edit_line(kMinimalScenario, 4,
                                     "    prompt:\n"
                                     "      - {shared: system, tokens: 1500}\n"
                                     "      - {pool: docs, count: 200, zipf: 1.1, tokens: {fixed: 3000}}\n"
                                     "      - {unique: true, tokens: {lognormal: {median: 150, sigma: 0.5}}}\n"
                                     "    session:\n"
                                     "      turns: {uniform: [3, 12]}\n"
                                     "      think_time: {exponential: {mean: 5s}}\n"
                                     "      new_input: {lognormal: {median: 80, sigma: 0.7}}\n"
                                     "      max_history_tokens: 32000");
  const Scenario s = load_scenario(dir.write("s.yaml", yaml));
  const ClassSpec& c = s.workload.at(0);
  CHECK_FALSE(c.input.has_value());
  REQUIRE(c.prompt.size() == 3);
  CHECK(c.prompt[0].kind == PromptSegmentSpec::Kind::shared);
  CHECK(c.prompt[0].name == "system");
  CHECK(c.prompt[0].tokens.a == 1500);
  CHECK(c.prompt[1].kind == PromptSegmentSpec::Kind::pool);
  CHECK(c.prompt[1].count == 200);
  CHECK(c.prompt[1].zipf == Approx(1.1));
  CHECK(c.prompt[1].tokens.a == 3000);
  CHECK(c.prompt[2].kind == PromptSegmentSpec::Kind::unique);
  CHECK(c.prompt[2].tokens.kind == DistSpec::Kind::lognormal);
  REQUIRE(c.session.has_value());
  CHECK(c.session->turns.kind == DistSpec::Kind::uniform);
  CHECK(c.session->turns.b == 12);
  REQUIRE(c.session->think_time_s.has_value());
  CHECK(c.session->think_time_s->a == Approx(5.0));
  CHECK(c.session->new_input.a == 80);
  CHECK(c.session->max_history_tokens == std::optional<std::int64_t>(32000));
  const std::string summary = describe_scenario(s);
  CHECK_THAT(summary, Catch::Contains("shared system (1500) + pool docs (200 documents, zipf 1.1"));
  CHECK_THAT(summary, Catch::Contains("sessions: turns"));
  CHECK_THAT(summary, Catch::Contains("poisson 4 sessions/s"));
}

TEST_CASE("prompt parse: mooncake and csv traces are accepted - with csv's block size", "[prefix]") {
  ScenarioDir dir;
  dir.write("t.csv", "arrival_s,input_tokens,output_tokens\n0,5,1\n");
  const std::string yaml = edit_line(edit_line(edit_line(kMinimalScenario, 5, ""), 4, ""), 3,
                                     "    trace: {format: csv, path: t.csv, hash_block_tokens: 64}");
  const Scenario s = load_scenario(dir.write("s.yaml", yaml));
  REQUIRE(s.workload.at(0).trace.has_value());
  CHECK(s.workload.at(0).trace->format == "csv");
  CHECK(s.workload.at(0).trace->hash_block_tokens == 64);
}

TEST_CASE("prompt parse: the prefix-caching scenario of the repo validates", "[prefix]") {
  const Scenario s = load_scenario(std::string(SERVESIM_SOURCE_DIR) + "/scenarios/prefix-caching.yaml");
  CHECK(s.workload.size() == 2);
  CHECK(s.cluster.router == "prefix-affinity");
  CHECK(s.cluster.pools.at(0).engine.prefix_cache);
}

}  // namespace servesim::prompt_parse_test
