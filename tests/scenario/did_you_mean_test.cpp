// Suggestions for misspelt keys and names.
#include "sim/scenario/did_you_mean.h"

#include <catch2/catch.hpp>

namespace servesim::did_you_mean_test {
namespace {

TEST_CASE("did you mean: edit distance counts edits - swaps and ignores case", "[scenario]") {
  CHECK(edit_distance("polcy", "policy") == 1);    // one deletion
  CHECK(edit_distance("raet", "rate") == 1);       // one adjacent swap
  CHECK(edit_distance("kitten", "sitting") == 3);  // the textbook example
  CHECK(edit_distance("Rate", "rate") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("same", "same") == 0);
}

TEST_CASE("did you mean: only close words are suggested", "[scenario]") {
  const std::vector<std::string> keys = {"name", "replicas", "model", "hardware", "tp", "pp"};
  CHECK(closest_match("replica", keys) == std::optional<std::string>("replicas"));
  CHECK(closest_match("hardwre", keys) == std::optional<std::string>("hardware"));
  CHECK(closest_match("modle", keys) == std::optional<std::string>("model"));
  CHECK_FALSE(closest_match("colour", keys));
  CHECK_FALSE(closest_match("x", keys));  // 2 edits from "tp" is too far for a short word
  CHECK(closest_match("xp", keys) == std::optional<std::string>("tp"));  // tie: the first wins
}

TEST_CASE("did you mean: the message suggests one word or lists all", "[scenario]") {
  const std::vector<std::string> routers = {"round-robin", "least-outstanding"};
  CHECK(unknown_choice_message("router", "routers", "round-robbin", routers) ==
        "unknown router 'round-robbin'; did you mean 'round-robin'?");
  CHECK(unknown_choice_message("router", "routers", "magic", routers) ==
        "unknown router 'magic'; valid routers: round-robin, least-outstanding");
}

}  // namespace
}  // namespace servesim::did_you_mean_test
