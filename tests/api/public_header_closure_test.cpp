// The public header hides the engine: following its #include "..." lines through the
// repository, no header of sim/engine/ or sim/cluster/ is reached, nor the Scenario's
// definition (made of their configuration types). A program built on include/servesim/
// then sees requests and results only, and those folders can change without breaking it.
// Read from the files themselves, so a new include that leaks fails here, naming the path
// by which it was reached.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace public_header_closure_test {

namespace {

namespace fs = std::filesystem;

// Every repository header reached from `start`, each with the chain that first reached it.
std::map<std::string, std::string> include_closure(const std::string& start) {
  const fs::path root = SERVESIM_SOURCE_DIR;
  const std::regex include(R"(^\s*#\s*include\s+"([^"]+)\")");
  std::map<std::string, std::string> reached{{start, start}};
  std::vector<std::string> todo{start};
  while (!todo.empty()) {
    const std::string file = todo.back();
    todo.pop_back();
    std::ifstream in(root / file);
    REQUIRE(in);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      std::string target = m[1];
      // Quoted includes resolve from the repository root, or from include/ for servesim/.
      if (target.rfind("servesim/", 0) == 0) target = "include/" + target;
      if (!fs::exists(root / target) || reached.count(target)) continue;
      reached[target] = reached[file] + " -> " + target;
      todo.push_back(target);
    }
  }
  return reached;
}

bool hidden(const std::string& path) {
  return path.rfind("sim/engine/", 0) == 0 || path.rfind("sim/cluster/", 0) == 0 ||
         path == "sim/scenario/scenario.h";
}

}  // namespace

TEST_CASE("public header: its include closure reaches no engine or cluster header", "[api][layering]") {
  const auto reached = include_closure("include/servesim/servesim.h");
  // The walk itself works: the header reaches the results it promises.
  CHECK(reached.count("sim/metrics/summary.h"));
  CHECK(reached.count("sim/metrics/run_result.h"));
  CHECK(reached.count("sim/scenario/scenario_file.h"));
  CHECK(reached.size() > 40);
  for (const auto& [path, chain] : reached) {
    INFO(chain);
    CHECK_FALSE(hidden(path));
  }
}

TEST_CASE("public header closure: an engine header one include away is found", "[api][layering]") {
  // The run that the simulation header makes is reachable from the simulation itself; the
  // walk must see it, or the test above proves nothing.
  const auto reached = include_closure("sim/study/run_judgement.h");
  CHECK(reached.count("sim/cluster/simulation.h"));
  CHECK(reached.count("sim/engine/replica.h"));
}

}  // namespace public_header_closure_test
