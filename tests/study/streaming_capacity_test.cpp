// A run that streamed more tokens per second per replica than one API-server process can
// write (overheads.frontend.per_streamed_token) is told so: the front end is a delay in
// servesim, not a queue, so its ITL would otherwise read as the client's.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"
#include "scenario/scenario_fixture.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/streaming_capacity.h"

namespace streaming_capacity_test {

using namespace servesim;
using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

TEST_CASE("streaming capacity: a pool above 1 / per_streamed_token per replica gets a note and one below none",
          "[study][frontend]") {
  ScenarioDir dir;
  Scenario s = load_scenario(dir.write(
      "s.yaml", edit_line(kMinimalScenario, 11, "      engine: {overheads: {frontend: {per_streamed_token: 1ms}}}")));
  REQUIRE(s.cluster.pools.at(0).engine.overheads.frontend_per_streamed_token_ns == 1'000'000);
  s.cluster.pools[0].replicas = 2;
  RunSummary summary;
  summary.pools.emplace_back(s.cluster.pools[0].name, SummaryBlock{});
  // 1 ms of API-server CPU per token: 1000 tokens/s per replica. 3000 tokens/s over two
  // replicas is 1500 each, above it; 1800 is 900 each, below.
  summary.pools[0].second.set("output_throughput", 3000);
  const auto notes = streaming_capacity_notes(s, summary);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("streamed 1500 tokens/s per replica") != std::string::npos);
  CHECK(notes[0].find("writes about 1000") != std::string::npos);
  summary.pools[0].second.set("output_throughput", 1800);
  CHECK(streaming_capacity_notes(s, summary).empty());
  // Not priced: never judged.
  s.cluster.pools[0].engine.overheads.frontend_per_streamed_token_ns = 0;
  summary.pools[0].second.set("output_throughput", 1e9);
  CHECK(streaming_capacity_notes(s, summary).empty());
}

TEST_CASE("streaming capacity: run prints the note for the quickstart at 1 ms per streamed token", "[cli][frontend]") {
  servesim::testing::TempDir dir("streaming-capacity");
  // The quickstart streams 1,244 output tokens/s on one replica over 2000 requests: above 1000.
  const auto r = servesim::testing::run_cli(
      "run scenarios/quickstart.yaml --set stop.requests=2000 --set "
      "cluster.pools.0.engine.overheads.frontend.per_streamed_token=1ms --out " +
      (dir.path / "a").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("note: pool main streamed") != std::string::npos);
  const auto plain = servesim::testing::run_cli("run scenarios/quickstart.yaml --set stop.requests=2000 --out " +
                                                (dir.path / "b").string());
  CHECK(plain.output.find("note: pool main streamed") == std::string::npos);
}

}  // namespace streaming_capacity_test
