// catch_discover_tests writes every test name into a CMake list (';' separates items) and
// CTest passes it back to the binary as a test spec (',' separates alternatives, '[' starts a
// tag, a leading '-' reads as an option). A name with any of these silently runs some other
// test, or none, under CTest, so such names are refused here.
#include <catch2/catch.hpp>

namespace test_names_test {

TEST_CASE("test names: no comma or semicolon or bracket and no leading dash") {
  const auto& all = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
  REQUIRE(all.size() > 100);
  for (const Catch::TestCase& t : all) {
    INFO(t.name);
    CHECK(t.name.find_first_of(",;[") == std::string::npos);
    CHECK(t.name.rfind("-", 0) != 0);
  }
}

}  // namespace test_names_test
