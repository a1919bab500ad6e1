// search.json and search.csv as the search files writer leaves them, and the lines around
// the search's table.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "sim/core/errors.h"
#include "sim/report/search_outputs.h"

namespace search_outputs_test {

using namespace servesim;
using servesim::testing::read_file;
using servesim::testing::TempDir;

namespace {

SearchReport nothing_feasible() {
  SearchReport report;
  report.scenario = "demo";
  report.space_path = "space.yaml";
  report.axes = {"cluster.pools.0.replicas", "cluster.pools.0.tp"};
  report.rate_key = "workload.0.arrival.rate";
  report.rate = 2.5;
  return report;
}

}  // namespace

TEST_CASE("search files: search.json holds the report as printed and search.csv its header", "[report][search]") {
  const TempDir dir("search_outputs");
  const std::string folder = (dir.path / "nested" / "out").string();
  const SearchFiles files = write_search_files(nothing_feasible(), folder);
  CHECK(files.json_path == folder + "/search.json");
  CHECK(files.csv_path == folder + "/search.csv");
  const std::string json_text = read_file(files.json_path);
  CHECK(json_text == files.json.dump(2) + "\n");
  const auto j = nlohmann::json::parse(json_text);
  CHECK(j["scenario"] == "demo");
  CHECK(j["space"] == "space.yaml");
  CHECK(j["target"]["key"] == "workload.0.arrival.rate");
  CHECK(j["target"]["rate"] == 2.5);
  CHECK(j["winner"].is_null());
  CHECK(j["candidates"] == 0);
  const std::string csv = read_file(files.csv_path);
  CHECK(csv.rfind("candidate,cluster.pools.0.replicas,cluster.pools.0.tp,", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(files.json_path + ".partial"));
}

TEST_CASE("search files: a folder that cannot be made is a ConfigError naming --out", "[report][search]") {
  try {
    write_search_files(nothing_feasible(), "/dev/null/out");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "--out");
  }
}

TEST_CASE("search outputs: the scope line and the line for no winner", "[report][search]") {
  std::ostringstream scope, winner;
  print_search_scope(nothing_feasible(), scope);
  CHECK(scope.str() == "servesim search: demo, 0 candidates over 2 keys at workload.0.arrival.rate = 2.5 req/s; SLO \n");
  print_search_winner(nothing_feasible(), winner);
  CHECK(winner.str() == "no candidate is feasible\n");
}

}  // namespace search_outputs_test
