// The study requests check themselves (validate(), sim/study/study_request_checks.cpp):
// each bad field is refused with a ConfigError naming it, before anything is loaded, and
// the study's run function makes the same check, so the CLI and Python, which only fill
// requests, give the same words.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "sim/core/errors.h"
#include "sim/study/capacity_study.h"
#include "sim/study/search_study.h"
#include "sim/study/sweep_study.h"

namespace servesim {
namespace study_request_checks_test {

// The message validate() throws, or "" when it accepts the request.
std::string refusal(const std::function<void()>& validate) {
  try {
    validate();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("study requests: a sweep refuses replicates and jobs out of range by their field names", "[study]") {
  SweepRequest ok;
  CHECK(refusal([&] { ok.validate(); }).empty());
  SweepRequest r = ok;
  r.replicates = 1001;
  CHECK(refusal([&] { r.validate(); }) == "replicates: must be a whole number from 1 to 1000, got 1001");
  r = ok;
  r.jobs = 0;
  CHECK(refusal([&] { r.validate(); }) == "jobs: must be at least 1, got 0");
  // run_sweep checks it before it reads the scenario: the path does not exist.
  r.scenario_path = "/nonexistent/scenario.yaml";
  CHECK(refusal([&] { run_sweep(r); }) == "jobs: must be at least 1, got 0");
}

TEST_CASE("study requests: capacity refuses each out-of-range field with its value as given", "[study]") {
  CapacityRequest ok;
  CHECK(refusal([&] { ok.validate(); }).empty());
  CapacityRequest r = ok;
  r.tolerance = 0;
  CHECK(refusal([&] { r.validate(); }) == "tolerance: must be > 0% (the final bracket's relative width), got 0%");
  r = ok;
  r.sustain_tolerance = 1;
  CHECK(refusal([&] { r.validate(); }) == "sustain_tolerance: must be between 0% and 100%, got 100%");
  r = ok;
  r.start = -2;
  CHECK(refusal([&] { r.validate(); }) == "start: must be > 0, got -2");
  r = ok;
  r.max_rate = 0;
  CHECK(refusal([&] { r.validate(); }) == "max_rate: must be > 0, got 0");
  r = ok;
  r.reject_share = 1.5;
  CHECK(refusal([&] { r.validate(); }) == "reject_share: must be from 0% to 100% (a share of the requests), got 150%");
  r.reject_share = 1;  // every request may be rejected: allowed, if pointless
  CHECK(refusal([&] { r.validate(); }).empty());
  r = ok;
  r.replicates = 0;
  r.scenario_path = "/nonexistent/scenario.yaml";
  CHECK(refusal([&] { plan_capacity(r); }) == "replicates: must be a whole number from 1 to 1000, got 0");
}

TEST_CASE("study requests: a search refuses a rate of 0 and a negative rejected share", "[study]") {
  SearchRequest ok;
  CHECK(refusal([&] { ok.validate(); }).empty());
  SearchRequest r = ok;
  r.rate = 0;
  CHECK(refusal([&] { r.validate(); }) == "rate: must be > 0 req/s, got 0");
  r = ok;
  r.reject_share = -0.1;
  CHECK(refusal([&] { r.validate(); }) == "reject_share: must be from 0% to 100% (a share of the requests), got -10%");
  r = ok;
  r.jobs = -3;
  r.scenario_path = "/nonexistent/scenario.yaml";
  CHECK(refusal([&] { run_search(r); }) == "jobs: must be at least 1, got -3");
}

TEST_CASE("study requests: a search takes the objectives cost and energy and total-cost and refuses any other", "[study]") {
  SearchRequest r;
  for (const char* name : {"cost", "energy", "total-cost"}) {
    r.objective = name;
    CHECK(refusal([&] { r.validate(); }).empty());
    CHECK(search_objective_name(*search_objective_of(name)) == std::string(name));
  }
  r.objective = "total_cost";  // the enumerator's spelling, not the option's
  CHECK(refusal([&] { r.validate(); }) == "objective: must be cost, energy or total-cost, got 'total_cost'");
  r.objective = "";
  CHECK(refusal([&] { r.validate(); }) == "objective: must be cost, energy or total-cost, got ''");
}

}  // namespace study_request_checks_test
}  // namespace servesim
