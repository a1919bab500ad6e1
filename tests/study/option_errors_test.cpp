// A bad command-line value caught below the CLI (the sweep's axes and shard, --slo,
// --price, --pareto, a percentage) is an option error: no file, the option in the key slot
// and the value at the front of the message, so it prints as "--OPTION: VALUE: why".
#include <catch2/catch.hpp>

#include <string>

#include "sim/core/errors.h"
#include "sim/scenario/percent.h"
#include "sim/study/pareto.h"
#include "sim/study/search_cost.h"
#include "sim/study/slo_targets.h"
#include "sim/study/sweep_spec.h"

namespace option_errors_test {

using namespace servesim;

namespace {

template <typename F>
ConfigError error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError");
  return ConfigError("", 0, "", "");
}

}  // namespace

TEST_CASE("option errors: --axis and --shard values name the option as key and no file", "[sweep]") {
  const ConfigError axis = error_of([] { parse_axis("garbage"); });
  CHECK(axis.file().empty());
  CHECK(axis.key() == "--axis");
  CHECK(axis.message() == "garbage: expected KEY=V1,V2,..., e.g. workload.0.arrival.rate=2,4,8");
  CHECK(std::string(axis.what()) == "--axis: garbage: expected KEY=V1,V2,..., e.g. workload.0.arrival.rate=2,4,8");

  const ConfigError none = error_of([] { sweep_point_count({}, SweepMode::product); });
  CHECK(none.file().empty());
  CHECK(none.key() == "--axis");
  CHECK(std::string(none.what()) == "--axis: a sweep needs at least one --axis KEY=V1,V2,...");

  const ConfigError shard = error_of([] { parse_shard("3/2"); });
  CHECK(shard.file().empty());
  CHECK(shard.key() == "--shard");
  CHECK(std::string(shard.what()) == "--shard: 3/2: needs 0 <= I < N (shards are numbered from 0)");
}

TEST_CASE("option errors: --slo --price --pareto and percentages likewise", "[sweep]") {
  const ConfigError slo = error_of([] { parse_slo_targets("ttft_p99=2s,,itl_p99=1s"); });
  CHECK(slo.file().empty());
  CHECK(slo.key() == "--slo");
  CHECK(std::string(slo.what()) == "--slo: ttft_p99=2s,,itl_p99=1s: has an empty item (two commas in a row?)");

  const ConfigError price = error_of([] { parse_prices("h100-sxm=abc"); });
  CHECK(price.file().empty());
  CHECK(price.key() == "--price");
  CHECK(std::string(price.what()) == "--price: h100-sxm=abc: the price must be a number >= 0 (USD per GPU-hour)");

  const ConfigError pareto =
      error_of([] { check_objective_fields({{"nosuch", true}}, {"completed"}, "--pareto", "max:nosuch"); });
  CHECK(pareto.file().empty());
  CHECK(pareto.key() == "--pareto");
  CHECK(pareto.message().rfind("max:nosuch: max:nosuch: unknown field 'nosuch'", 0) == 0);

  const ConfigError percent = error_of([] { parse_percent_or_throw("5", "--tolerance"); });
  CHECK(percent.file().empty());
  CHECK(percent.key() == "--tolerance");
  CHECK(std::string(percent.what()) ==
        "--tolerance: 5: expected a non-negative percentage with a % sign, e.g. 5% or 0.5%");
}

}  // namespace option_errors_test
