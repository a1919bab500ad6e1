// The layers of sim/ depend one way (docs/ARCHITECTURE.md, "Layers"): every #include of
// another folder of sim/ goes to a lower layer. Read from the source files themselves, so a
// new include that points up fails here, naming the file and line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace layering_test {

namespace {

// Lower numbers are lower layers. Folders of the same number (hardware, workload) know
// nothing of each other. The engine reports what it measures through its own listener
// (sim/engine/measurement_listener.h), so metrics sit above it and subscribe.
const std::map<std::string, int> kLayer = {
    {"core", 0},    {"model", 1},    {"hardware", 2}, {"workload", 2}, {"engine", 3},  {"metrics", 4},
    {"cluster", 5}, {"scenario", 6}, {"study", 7},    {"report", 8},   {"cli", 9},
};

}  // namespace

TEST_CASE("layering: every include of another sim folder points to a lower layer", "[core][layering]") {
  namespace fs = std::filesystem;
  const fs::path sim = fs::path(SERVESIM_SOURCE_DIR) / "sim";
  const std::regex include(R"(^\s*#\s*include\s+"sim/([a-z_]+)/)");
  int files = 0, includes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(sim)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    const std::string folder = fs::relative(entry.path(), sim).begin()->string();
    INFO(entry.path().string());
    REQUIRE(kLayer.count(folder));  // a new folder of sim/ needs its place here
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      std::smatch m;
      if (!std::regex_search(line, m, include) || m[1] == folder) continue;
      ++includes;
      INFO(entry.path().string() << ":" << number << ": " << line);
      REQUIRE(kLayer.count(m[1]));
      CHECK(kLayer.at(m[1]) < kLayer.at(folder));
    }
  }
  CHECK(files > 300);
  CHECK(includes > 300);
}

}  // namespace layering_test
