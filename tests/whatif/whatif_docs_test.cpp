// docs/what-if.md shows every claim's plot: a section "## N. ..." carries the line
// "![what-if N](img/whatif-NN.png)" (scripts/whatif.py's file name) and the PNG is in docs/img/.
// A section that only points at another ("See section M.") has no plot of its own.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace whatif_docs_test {

struct Section {
  int number = 0;
  std::string body;
};

std::vector<Section> sections_of(const std::string& text) {
  std::vector<Section> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    int number = 0;
    if (line.rfind("## ", 0) == 0 && std::sscanf(line.c_str(), "## %d.", &number) == 1) {
      out.push_back({number, ""});
      continue;
    }
    if (!out.empty()) out.back().body += line + "\n";
  }
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST_CASE("what-if page: every claim's section shows its plot and the PNG exists", "[whatif][docs]") {
  const std::string docs = std::string(SERVESIM_SOURCE_DIR) + "/docs/";
  const std::vector<Section> sections = sections_of(read_all(docs + "what-if.md"));
  int with_plot = 0;
  int last = 0;
  for (const Section& s : sections) {
    INFO("section " << s.number);
    last = s.number;
    if (s.body.find("See section ") != std::string::npos && s.body.find("scenarios/") == std::string::npos) continue;
    char file[32];
    std::snprintf(file, sizeof file, "img/whatif-%02d.png", s.number);
    const std::string image_line = "![what-if " + std::to_string(s.number) + "](" + file + ")";
    CHECK(s.body.find(image_line + "\n") != std::string::npos);
    const std::string png = read_all(docs + file);
    // The PNG signature (ISO/IEC 15948, section 5.2): a file written whole by matplotlib.
    REQUIRE(png.size() > 8);
    CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    ++with_plot;
  }
  // Sections 1 to 19 at least, of which only 14 (pointing at 5) has no plot.
  CHECK(last >= 19);
  CHECK(with_plot + 1 == static_cast<int>(sections.size()));
}

}  // namespace whatif_docs_test
