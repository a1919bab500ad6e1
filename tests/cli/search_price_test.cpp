// `search --price NAME=USD`: a NAME that no candidate's hardware has would leave the ranking
// on the profiles' own prices, so it is refused (exit 2) before any candidate runs.
#include <catch2/catch.hpp>

#include "cli/cli_test_util.h"

namespace search_price_test {

using namespace servesim::testing;

TEST_CASE("search: a --price for hardware no candidate runs on is refused - with did-you-mean", "[search]") {
  TempDir dir("search-price");
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, 2]\n");
  const std::string cmd = "search scenarios/quickstart.yaml --space " + space.string() + " -q --out " +
                          (dir.path / "out").string() + " --price ";
  const auto typo = run_cli(cmd + "h100-sxn=2");
  INFO(typo.output);
  CHECK(typo.exit_code == 2);
  CHECK(typo.output.find("--price: h100-sxn: no candidate runs on hardware 'h100-sxn'; did you mean 'h100-sxm'?") !=
        std::string::npos);
  const auto other = run_cli(cmd + "h100-sxm=2,a100-80g-sxm=1");
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("no candidate runs on hardware 'a100-80g-sxm'; the candidates run on h100-sxm") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "out" / "search.json"));
}

}  // namespace search_price_test
