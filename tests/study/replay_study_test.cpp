// The replay study's count of figures beyond a tolerance, on sets written by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "sim/study/replay_study.h"

namespace replay_study_test {

using namespace servesim;

namespace {

ReplaySet set_with_errors(std::initializer_list<double> errors) {
  ReplaySet set;
  for (const double e : errors) set.rows.push_back({"f", 1.0, 1.0 + e, e});
  return set;
}

}  // namespace

TEST_CASE("replay study: a figure is beyond the tolerance only when its error is strictly larger in size",
          "[study][replay]") {
  const double missing = std::numeric_limits<double>::quiet_NaN();
  // |-0.2| and 0.11 exceed 10%; 0.1 itself does not; a figure with no error never counts.
  const std::vector<ReplaySet> sets = {set_with_errors({0.05, -0.2, missing, 0.1}), set_with_errors({0.11})};
  CHECK(count_beyond(sets, 0.1) == 2);
  CHECK(count_beyond(sets, 0.5) == 0);
  CHECK(count_beyond(sets, 0.0) == 4);
}

}  // namespace replay_study_test
