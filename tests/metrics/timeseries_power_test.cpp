// timeseries.csv's power_w column (runs with cluster.energy, docs/energy.md): a replica's
// GPUs at idle while it is on, plus the energy above idle of the steps that started in the
// interval, over the interval. Worked by hand.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "sim/metrics/timeseries.h"

namespace timeseries_power_test {

using namespace servesim;

namespace {

constexpr Tick kS = 1'000'000'000;

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string c;
  while (std::getline(in, c, ',')) out.push_back(c);
  return out;
}

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) rows.push_back(cells(line));
  return rows;
}

StepSample step(int replica, Tick start_ns, double above_idle_j) {
  StepSample s;
  s.replica = replica;
  s.start_ns = start_ns;
  s.duration_ns = kS / 10;
  s.above_idle_j = above_idle_j;
  return s;
}

}  // namespace

TEST_CASE("timeseries power: idle while on plus the steps' energy above idle over the interval", "[metrics][timeseries][energy]") {
  // One pool of 2 replicas of 2 GPUs at 70 W idle (140 W a replica), 1 s intervals.
  // Replica 0: a step of 10 J above idle at 0.5 s, then off from 1.5 s: 140 + 10 = 150 W in
  // the first second, 140 x 0.5 = 70 W in the second. Replica 1: off at t = 0, on from
  // 0.25 s, a step of 30 J at 1.2 s: 140 x 0.75 = 105 W, then 140 + 30 = 170 W.
  std::ostringstream out;
  TimeseriesWriter w(out, kS, {"main"}, {2}, false, {140.0});
  w.on_power(0, 1, 0, false);
  w.on_step(step(0, kS / 2, 10.0));
  w.on_power(0, 1, kS / 4, true);
  w.on_step(step(1, 12 * kS / 10, 30.0));
  w.on_power(0, 0, 15 * kS / 10, false);
  w.finish();
  const auto rows = rows_of(out.str());
  REQUIRE(rows.size() == 5);
  REQUIRE(rows[0].back() == "power_w");
  // Rows: interval 0 replica 0 and 1, interval 1 replica 0 and 1.
  CHECK(std::stod(rows[1].back()) == Approx(150).epsilon(1e-9));
  CHECK(std::stod(rows[2].back()) == Approx(105).epsilon(1e-9));
  CHECK(std::stod(rows[3].back()) == Approx(70).epsilon(1e-9));
  CHECK(std::stod(rows[4].back()) == Approx(170).epsilon(1e-9));
}

TEST_CASE("timeseries power: without idle powers the file has no power column", "[metrics][timeseries][energy]") {
  std::ostringstream out;
  TimeseriesWriter w(out, kS, {"main"}, {1});
  w.on_step(step(0, 0, 10.0));
  w.finish();
  CHECK(out.str().find("power_w") == std::string::npos);
  CHECK(rows_of(out.str())[0].back() == "tokens_per_s");
}

}  // namespace timeseries_power_test
