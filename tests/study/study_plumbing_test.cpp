// The plumbing the studies share (sim/study/study_runs.h, sim/study/feasibility.h): one
// scenario that cannot be built fails alone, every task is reported once, and capacity and
// search resolve the class and the objectives they judge by one rule.
#include <catch2/catch.hpp>

#include <atomic>
#include <set>

#include "cli/cli_test_util.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/study/feasibility.h"
#include "sim/study/study_runs.h"

namespace study_plumbing_test {

using namespace servesim;
using servesim::testing::TempDir;

namespace {

const std::string kTwoClasses =
    "name: two\nseed: 3\nstop: {requests: 100}\n"
    "workload:\n"
    "  - class: chat\n    arrival: {process: poisson, rate: 2}\n    input: {fixed: 100}\n    output: {fixed: 10}\n"
    "    slo: {ttft: 300ms, tpot: 50ms}\n"
    "  - class: batch\n    arrival: {process: poisson, rate: 1}\n    input: {fixed: 100}\n    output: {fixed: 10}\n"
    "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n";

}  // namespace

TEST_CASE("run_each: a task's ConfigError is its own and the others go on", "[study][plumbing]") {
  for (const int jobs : {1, 3}) {
    std::vector<int> done_count(7, 0);
    std::atomic<int> ran{0};
    const auto errors = run_each(
        7, jobs,
        [&](std::size_t i) {
          ++ran;
          if (i == 2 || i == 5) throw ConfigError("f.yaml", static_cast<int>(i), "key", "bad " + std::to_string(i));
        },
        [&](std::size_t i, const ConfigError* e) {
          ++done_count[i];
          CHECK((e != nullptr) == (i == 2 || i == 5));
        });
    CHECK(ran == 7);
    REQUIRE(errors.size() == 7);
    for (std::size_t i = 0; i < 7; ++i) {
      CHECK(done_count[i] == 1);
      CHECK(errors[i].has_value() == (i == 2 || i == 5));
    }
    CHECK(errors[5]->message() == "bad 5");
    CHECK(errors[5]->line() == 5);
  }
}

TEST_CASE("run_each: any other exception stops the study", "[study][plumbing]") {
  CHECK_THROWS_AS(run_each(4, 2, [](std::size_t i) { if (i == 1) throw std::runtime_error("bug"); }),
                  std::runtime_error);
}

TEST_CASE("feasibility: the judged class is the named one - else the only one - else none", "[study][plumbing]") {
  TempDir dir("plumbing-class");
  const std::string path = dir.write("s.yaml", kTwoClasses).string();
  const Scenario two = load_scenario(path);
  CHECK(judged_class_index(two, "batch", path) == 1);
  CHECK(judged_class_index(two, "", path) == -1);
  const Scenario one = load_scenario(path, {"workload=[{class: solo, arrival: {process: poisson, rate: 1}, "
                                            "input: {fixed: 10}, output: {fixed: 2}}]"});
  CHECK(judged_class_index(one, "", path) == 0);
  try {
    judged_class_index(two, "chta", path);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "--class");
    CHECK(e.message().find("did you mean 'chat'") != std::string::npos);
  }
}

TEST_CASE("feasibility: SLO scopes come from --slo - else from each class's slo block", "[study][plumbing]") {
  TempDir dir("plumbing-slo");
  const std::string path = dir.write("s.yaml", kTwoClasses).string();
  const Scenario s = load_scenario(path);
  // Each class's own block: only chat has one (ttft and tpot, two targets).
  auto scopes = slo_scopes(s, "", "", path);
  REQUIRE(scopes.size() == 1);
  CHECK(scopes[0].class_name == "chat");
  CHECK(scopes[0].targets.size() == 2);
  // --slo text for the named class, whatever the class's block says.
  scopes = slo_scopes(s, "batch", "ttft_p99=2s", path);
  REQUIRE(scopes.size() == 1);
  CHECK(scopes[0].class_name == "batch");
  CHECK(scopes[0].targets.size() == 1);
  // batch has no slo: and no --slo was given: nothing to judge against.
  try {
    slo_scopes(s, "batch", "", path);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "--slo");
    CHECK(e.file() == path);
  }
}

TEST_CASE("feasibility: replicate k of seed S runs seed S+k", "[study][plumbing]") {
  CHECK(replicate_seed(41, 0) == 41);
  CHECK(replicate_seed(41, 3) == 44);
}

}  // namespace study_plumbing_test
