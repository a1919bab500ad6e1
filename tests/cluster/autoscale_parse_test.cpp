// The `autoscale:` keys of a pool: read from YAML with their defaults, and bad input
// reported at its file, line and key.
#include <catch2/catch.hpp>

#include "scenario/scenario_fixture.h"
#include "scenario/scenario_load_error.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"

namespace autoscale_parse_test {

using servesim::testing::ScenarioDir;
using servesim::testing::scenario_load_error;
using namespace servesim;

namespace {


// The pool as a block mapping, so the autoscale keys sit on lines of their own.
std::string pool_block(const std::string& autoscale_lines, const std::string& pool_extra_lines = "") {
  return std::string(R"(workload:
  - class: chat
    arrival: {process: poisson, rate: 4}
    input: {fixed: 100}
    output: {fixed: 10}
stop: {requests: 100}
cluster:
  pools:
    - model: tiny-model.yaml
      hardware: tiny-gpu.yaml
)") + pool_extra_lines + "      autoscale:\n" + autoscale_lines;
}

}  // namespace

TEST_CASE("autoscale keys are read with their defaults", "[cluster][scenario][autoscale]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write(
      "s.yaml", pool_block("        policy: in_flight\n        target: 8\n        max_replicas: 4\n"
                           "        cold_start: 90s\n")));
  const PoolConfig& p = s.cluster.pools.at(0);
  REQUIRE(p.autoscale.has_value());
  const AutoscaleSpec& a = *p.autoscale;
  CHECK(p.replicas == 4);  // built up front
  CHECK(a.policy == "in_flight");
  CHECK(a.target == 8);
  CHECK(a.min_replicas == 1);
  CHECK(a.max_replicas == 4);
  CHECK(a.initial_replicas == 1);
  CHECK(a.cold_start_ns == 90 * kNsPerSec);
  CHECK(a.interval_ns == 15 * kNsPerSec);
  CHECK(a.scale_down_delay_ns == 300 * kNsPerSec);

  const Scenario t = load_scenario(dir.write(
      "t.yaml", pool_block("        policy: schedule\n        min_replicas: 2\n        max_replicas: 6\n"
                           "        cold_start: 0s\n"
                           "        schedule: [{at: 0s, replicas: 3}, {at: 1h, replicas: 6}, {at: 2h, replicas: 2}]\n")));
  const AutoscaleSpec& b = *t.cluster.pools.at(0).autoscale;
  CHECK(b.initial_replicas == 3);      // the step at 0
  CHECK(b.scale_down_delay_ns == 0);   // a schedule is followed as written
  REQUIRE(b.schedule.size() == 3);
  CHECK(b.schedule[1].at_ns == 3600 * kNsPerSec);
  CHECK(b.schedule[1].replicas == 6);
}

TEST_CASE("autoscale bad input names the file line and key", "[cluster][scenario][autoscale]") {
  // Lines: 11 is the autoscale key, 12.. its keys.
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: in_flihgt\n        target: 8\n        max_replicas: 4\n"
                                                "        cold_start: 1s\n"));
    CHECK(e.line() == 12);
    CHECK(e.key() == "cluster.pools.0.autoscale.policy");
    CHECK_THAT(e.message(), Catch::Contains("did you mean 'in_flight'"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("s.yaml"));
  }
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: in_flight\n        target: 8\n        min_replicas: 5\n"
                                                "        max_replicas: 4\n        cold_start: 1s\n"));
    CHECK(e.line() == 15);
    CHECK(e.key() == "cluster.pools.0.autoscale.max_replicas");
    CHECK_THAT(e.message(), Catch::Contains("below min_replicas 5"));
  }
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: in_flight\n        target: 8\n        max_replicas: 4\n"
                                                "        cold_start: -5s\n"));
    CHECK(e.line() == 15);
    CHECK(e.key() == "cluster.pools.0.autoscale.cold_start");
  }
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: in_flight\n        target: 8\n        max_replicas: 4\n"
                                                "        cold_start: 1s\n        scale_down_delay: -1s\n"));
    CHECK(e.line() == 16);
    CHECK(e.key() == "cluster.pools.0.autoscale.scale_down_delay");
  }
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: in_flight\n        target: 8\n        max_replicas: 4\n"
                                                "        cold_start: 1s\n        intervall: 5s\n"));
    CHECK(e.line() == 16);
    CHECK(e.key() == "cluster.pools.0.autoscale.intervall");
    CHECK_THAT(e.message(), Catch::Contains("did you mean 'interval'"));
  }
  {
    // A key of another policy is not silently ignored.
    const ConfigError e = scenario_load_error(pool_block("        policy: slo_headroom\n        ttft_target: 1s\n"
                                                "        target: 8\n        max_replicas: 4\n        cold_start: 1s\n"));
    CHECK(e.line() == 14);
    CHECK(e.key() == "cluster.pools.0.autoscale.target");
  }
  {
    // No host link in the hardware profile to derive the cold start from.
    const ConfigError e = scenario_load_error(pool_block("        policy: in_flight\n        target: 8\n        max_replicas: 4\n"));
    CHECK(e.line() == 11);
    CHECK(e.key() == "cluster.pools.0.autoscale");
    CHECK_THAT(e.message(), Catch::Contains("cold_start"));
  }
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: in_flight\n        target: 8\n        max_replicas: 4\n"
                                                "        cold_start: 1s\n",
                                                "      replicas: 2\n"));
    CHECK(e.line() == 11);
    CHECK(e.key() == "cluster.pools.0.replicas");
  }
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: schedule\n        max_replicas: 4\n        cold_start: 1s\n"
                                                "        schedule: [{at: 1h, replicas: 2}, {at: 30m, replicas: 3}]\n"));
    CHECK(e.line() == 15);
    CHECK(e.key() == "cluster.pools.0.autoscale.schedule.1.at");
  }
  {
    const ConfigError e = scenario_load_error(pool_block("        policy: schedule\n        max_replicas: 4\n        cold_start: 1s\n"
                                                "        schedule: [{at: 1h, replicas: 5}]\n"));
    CHECK(e.key() == "cluster.pools.0.autoscale.schedule.0.replicas");
    CHECK_THAT(e.message(), Catch::Contains("outside [min_replicas, max_replicas]"));
  }
}

TEST_CASE("autoscale is refused on a prefill pool", "[cluster][scenario][autoscale]") {
  const ConfigError e = scenario_load_error(std::string(R"(workload:
  - class: chat
    arrival: {process: poisson, rate: 4}
    input: {fixed: 100}
    output: {fixed: 10}
stop: {requests: 100}
cluster:
  pools:
    - name: p
      role: prefill
      decode_pool: d
      model: tiny-model.yaml
      hardware: tiny-gpu.yaml
      autoscale: {policy: in_flight, target: 4, max_replicas: 3, cold_start: 1s}
    - {name: d, role: decode, model: tiny-model.yaml, hardware: tiny-gpu.yaml}
)"));
  CHECK(e.line() == 14);
  CHECK(e.key() == "cluster.pools.0.autoscale");
  CHECK_THAT(e.message(), Catch::Contains("unified pools only"));
}

}  // namespace autoscale_parse_test
