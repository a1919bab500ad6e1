// SLOs as users write them (docs/metrics.md, "SLOs and goodput"): a class's `slo:` block,
// `--slo` of capacity/search and vLLM's `--goodput` pairs; every bound carries its unit,
// and each one is stated for a statistic (p99 when none is named).
#include <catch2/catch.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "scenario/scenario_fixture.h"
#include "sim/core/errors.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/scenario/vllm_goodput.h"
#include "sim/study/slo_targets.h"

using servesim::testing::edit_line;
using servesim::testing::kMinimalScenario;
using servesim::testing::ScenarioDir;

namespace servesim::slo_parse_test {
namespace {

// kMinimalScenario with `slo_line` after its output line (so the slo: is line 6).
std::string with_slo(const std::string& slo_line) {
  return edit_line(kMinimalScenario, 5, "    output: {fixed: 10}\n" + slo_line);
}

ConfigError load_error(const ScenarioDir& dir, const std::string& yaml) {
  try {
    load_scenario(dir.write("bad.yaml", yaml));
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for:\n" << yaml);
  return ConfigError("", 0, "", "");
}

}  // namespace

TEST_CASE("slo: a bound alone is stated for the p99 - a mapping names its statistic", "[slo]") {
  ScenarioDir dir;
  const Scenario s = load_scenario(dir.write(
      "s.yaml", with_slo("    slo: {ttft: 2s, itl: {every: 100ms}, tpot: {mean: 50ms}, e2el: {p99.9: 1.5m}}")));
  const SloSpec& slo = s.workload.at(0).slo;
  CHECK(slo.ttft_ns == 2'000'000'000LL);
  CHECK(slo.ttft_stat == "p99");
  CHECK(slo.itl_ns == 100'000'000LL);
  CHECK(slo.itl_stat == "every");
  CHECK(slo.tpot_ns == 50'000'000LL);
  CHECK(slo.tpot_stat == "mean");
  CHECK(slo.e2el_ns == 90'000'000'000LL);
  CHECK(slo.e2el_stat == "p999");

  const Scenario median = load_scenario(dir.write("m.yaml", with_slo("    slo: {ttft: {median: 300us}}")));
  CHECK(median.workload.at(0).slo.ttft_stat == "p50");
  CHECK(median.workload.at(0).slo.ttft_ns == 300'000LL);

  // A run is judged on the stated statistic: `every` bounds the slowest one.
  const auto targets = slo_targets_from_spec(slo);
  REQUIRE(targets.size() == 4);
  CHECK(targets[0].field() == "p99_ttft_ms");
  CHECK(targets[1].field() == "max_itl_ms");
  CHECK(targets[1].text() == "itl_every<=100ms");
  CHECK(targets[2].field() == "mean_tpot_ms");
  CHECK(targets[3].field() == "p999_e2el_ms");
}

TEST_CASE("slo: a bare number is refused at its file - line and key with the fix", "[slo]") {
  ScenarioDir dir;
  const ConfigError bare = load_error(dir, with_slo("    slo: {itl: 50ms,\n          ttft: 200}"));
  CHECK(bare.line() == 7);
  CHECK(bare.key() == "workload.0.slo.ttft");
  CHECK_THAT(bare.message(), Catch::Contains("write 200ms or 200s"));

  const ConfigError nested = load_error(dir, with_slo("    slo: {itl: {every: 0.5}}"));
  CHECK(nested.line() == 6);
  CHECK(nested.key() == "workload.0.slo.itl.every");
  CHECK_THAT(nested.message(), Catch::Contains("write 0.5ms or 0.5s"));
}

TEST_CASE("slo: unknown statistics - two statistics - zero bounds and bad units are refused", "[slo]") {
  ScenarioDir dir;
  const ConfigError p98 = load_error(dir, with_slo("    slo: {ttft: {p98: 1s}}"));
  CHECK(p98.key() == "workload.0.slo.ttft.p98");
  CHECK_THAT(p98.message(), Catch::Contains("did you mean"));
  const ConfigError two = load_error(dir, with_slo("    slo: {ttft: {p99: 1s, mean: 500ms}}"));
  CHECK(two.key() == "workload.0.slo.ttft");
  CHECK_THAT(two.message(), Catch::Contains("one statistic"));
  CHECK_THAT(load_error(dir, with_slo("    slo: {tpot: 0ms}")).message(), Catch::Contains("must be > 0"));
  CHECK_THAT(load_error(dir, with_slo("    slo: {e2el: 5 parsecs}")).message(), Catch::Contains("bad duration"));
  CHECK(load_error(dir, with_slo("    slo: {latency: 1s}")).key() == "workload.0.slo.latency");
}

TEST_CASE("slo: the CLI refuses a bare number with exit 2 - naming file - line and key", "[slo][cli]") {
  ScenarioDir dir;
  const std::string path = dir.write("bare.yaml", with_slo("    slo: {ttft: 200}"));
  const auto r = testing::run_cli("validate " + path);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(path + ":6"));
  CHECK_THAT(r.output, Catch::Contains("workload.0.slo.ttft"));
  CHECK_THAT(r.output, Catch::Contains("write 200ms or 200s"));
  // The same through --set, which has no line.
  const std::string good = dir.write("good.yaml", with_slo("    slo: {ttft: 2s}"));
  const auto set = testing::run_cli("validate " + good + " --set workload.0.slo.itl=50");
  CHECK(set.exit_code == 2);
  CHECK_THAT(set.output, Catch::Contains("write 50ms or 50s"));
  CHECK(testing::run_cli("validate " + good + " --set 'workload.0.slo.itl={every: 50ms}'").exit_code == 0);
}

TEST_CASE("slo: --slo items take a statistic or none - every included - and need units", "[slo]") {
  const auto t = parse_slo_targets("ttft=2s,itl_every=50ms,e2el_p99.9=1m,queue_median=10ms");
  REQUIRE(t.size() == 4);
  CHECK(t[0].field() == "p99_ttft_ms");
  CHECK(t[0].bound_ms == 2000);
  CHECK(t[1].field() == "max_itl_ms");
  CHECK(t[1].bound_ms == 50);
  CHECK(t[2].field() == "p999_e2el_ms");
  CHECK(t[3].field() == "p50_queue_ms");
  try {
    parse_slo_targets("ttft_p99=200");
    FAIL("a bare number was accepted");
  } catch (const ConfigError& e) {
    CHECK(e.file().empty());
    CHECK(e.key() == "--slo");
    CHECK(e.message().rfind("ttft_p99: '200' has no unit", 0) == 0);
    CHECK_THAT(e.message(), Catch::Contains("write 200ms or 200s"));
  }
  CHECK_THROWS_AS(parse_slo_targets("ttft_every"), ConfigError);
  CHECK_THROWS_AS(parse_slo_targets("ttft_max=1s"), ConfigError);
}

TEST_CASE("slo: vLLM's --goodput pairs are milliseconds - for ttft tpot and e2el", "[slo]") {
  const SloSpec slo = parse_vllm_goodput({"ttft:200 tpot:50", "e2el:1000"});
  CHECK(slo.ttft_ns == 200'000'000LL);
  CHECK(slo.tpot_ns == 50'000'000LL);
  CHECK(slo.e2el_ns == 1'000'000'000LL);
  CHECK_FALSE(slo.itl_ns.has_value());
  CHECK(parse_vllm_goodput({"ttft:1.5s"}).ttft_ns == 1'500'000'000LL);
  CHECK(parse_vllm_goodput({"tpot:0.25"}).tpot_ns == 250'000LL);
  // vLLM's own refusals: ITL is not one of its goodput metrics, and a pair needs its colon.
  CHECK_THROWS_WITH(parse_vllm_goodput({"itl:50"}), Catch::Contains("unknown metric 'itl'"));
  CHECK_THROWS_WITH(parse_vllm_goodput({"ttft=200"}), Catch::Contains("not KEY:VALUE"));
  CHECK_THROWS_WITH(parse_vllm_goodput({"ttft:-1"}), Catch::Contains(">= 0"));
  CHECK_THROWS_AS(parse_vllm_goodput({" "}), ConfigError);
}

}  // namespace servesim::slo_parse_test
