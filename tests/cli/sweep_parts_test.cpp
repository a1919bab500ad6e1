// The parts behind sweep, capacity and compare, without running simulations: axis parsing,
// point enumeration, shards, the Pareto front, percentages, SLO targets and the capacity
// search on a known feasibility boundary.
#include <catch2/catch.hpp>

#include "sim/study/capacity_search.h"
#include "sim/core/errors.h"
#include "sim/study/pareto.h"
#include "sim/scenario/percent.h"
#include "sim/study/slo_targets.h"
#include "sim/study/summary_compare.h"
#include "sim/study/sweep_spec.h"
#include "sim/study/sweep_table.h"

namespace sweep_parts_test {

using namespace servesim;

TEST_CASE("sweep axes: values split at top-level commas only - so YAML flow values survive", "[sweep]") {
  const SweepAxis a = parse_axis("workload.0.output={fixed: 1}, {uniform: [1, 9]},'a,b'");
  CHECK(a.key == "workload.0.output");
  REQUIRE(a.values.size() == 3);
  CHECK(a.values[0] == "{fixed: 1}");
  CHECK(a.values[1] == "{uniform: [1, 9]}");
  CHECK(a.values[2] == "'a,b'");
  CHECK_THROWS_AS(parse_axis("no-equals"), ConfigError);
  CHECK_THROWS_AS(parse_axis("=1,2"), ConfigError);
  CHECK_THROWS_AS(parse_axis("k=1,"), ConfigError);
}

TEST_CASE("sweep points: a product is nested loops in --axis order - a zip pairs the i-th values", "[sweep]") {
  const std::vector<SweepAxis> axes = {{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}};
  REQUIRE(sweep_point_count(axes, SweepMode::product) == 6);
  CHECK(sweep_point_overrides(axes, SweepMode::product, 0) == std::vector<std::string>{"a=1", "b=x"});
  CHECK(sweep_point_overrides(axes, SweepMode::product, 2) == std::vector<std::string>{"a=1", "b=z"});
  CHECK(sweep_point_overrides(axes, SweepMode::product, 4) == std::vector<std::string>{"a=2", "b=y"});
  CHECK_THROWS_AS(sweep_point_count(axes, SweepMode::zip), ConfigError);  // 2 vs 3 values
  const std::vector<SweepAxis> pair = {{"a", {"1", "2"}}, {"b", {"x", "y"}}};
  REQUIRE(sweep_point_count(pair, SweepMode::zip) == 2);
  CHECK(sweep_point_overrides(pair, SweepMode::zip, 1) == std::vector<std::string>{"a=2", "b=y"});
  CHECK_THROWS_AS(sweep_point_count({{"a", {"1"}}, {"a", {"2"}}}, SweepMode::product), ConfigError);
  // 1001^2 points exceed the cap of a million.
  SweepAxis big{"k", std::vector<std::string>(1001, "1")};
  SweepAxis big2{"j", big.values};
  CHECK_THROWS_AS(sweep_point_count({big, big2}, SweepMode::product), ConfigError);
}

TEST_CASE("sweep shards: I/N takes every N-th point from I - and the shards partition the points", "[sweep]") {
  const SweepShard s = parse_shard("1/3");
  CHECK(s.index == 1);
  CHECK(s.count == 3);
  std::vector<int> owners(10, 0);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t p = 0; p < 10; ++p) owners[p] += parse_shard(std::to_string(i) + "/3").has(p) ? 1 : 0;
  for (int n : owners) CHECK(n == 1);
  CHECK(s.has(4));
  CHECK_FALSE(s.has(5));
  CHECK_THROWS_AS(parse_shard("3/3"), ConfigError);
  CHECK_THROWS_AS(parse_shard("0/0"), ConfigError);
  CHECK_THROWS_AS(parse_shard("1"), ConfigError);
  CHECK_THROWS_AS(parse_shard("a/2"), ConfigError);
}

TEST_CASE("pareto: the front keeps every point no other beats on all objectives", "[sweep]") {
  const auto obj = default_objectives();  // max throughput, min p99 TTFT, min p99 ITL
  using V = std::optional<double>;
  const std::vector<std::vector<V>> rows = {
      {10.0, 5.0, 1.0},   // 0: slowest but lowest latency -> front
      {20.0, 10.0, 1.0},  // 1: front
      {15.0, 12.0, 1.0},  // 2: beaten by 1 (more throughput, less TTFT)
      {20.0, 10.0, 1.0},  // 3: equal to 1 -> neither beats the other, both on the front
      {20.0, 10.0, 2.0},  // 4: beaten by 1 on ITL alone
      {V{}, 1.0, 1.0},    // 5: no throughput -> off the front
  };
  const auto front = pareto_front(rows, obj);
  CHECK(front == std::vector<bool>{true, true, false, true, false, false});
  // An objective no row has is ignored (ITL when every output is one token).
  const std::vector<std::vector<V>> no_itl = {{10.0, 5.0, V{}}, {20.0, 4.0, V{}}};
  CHECK(pareto_front(no_itl, obj) == std::vector<bool>{false, true});
  CHECK(parse_objectives("max:a,min:b", "--pareto", "").size() == 2);
  CHECK_THROWS_AS(parse_objectives("up:a", "--pareto", ""), ConfigError);
}

TEST_CASE("percentages need the % sign - SLO targets name summary fields", "[sweep]") {
  CHECK(parse_percent("5%") == Approx(0.05));
  CHECK(parse_percent(" 0.5 %") == Approx(0.005));
  CHECK_FALSE(parse_percent("5"));
  CHECK_FALSE(parse_percent("-1%"));
  CHECK_FALSE(parse_percent("abc%"));

  const auto t = parse_slo_targets("ttft_p99=2s,itl_mean=100ms,e2el_median=1.5m");
  REQUIRE(t.size() == 3);
  CHECK(t[0].field() == "p99_ttft_ms");
  CHECK(t[0].bound_ms == 2000.0);
  CHECK(t[1].field() == "mean_itl_ms");
  CHECK(t[1].bound_ms == 100.0);
  CHECK(t[2].field() == "p50_e2el_ms");
  CHECK(t[2].bound_ms == 90000.0);
  CHECK_THROWS_AS(parse_slo_targets("ttft_p98=2s"), ConfigError);
  CHECK(parse_slo_targets("ttft=2s").at(0).field() == "p99_ttft_ms");  // no statistic: the p99
  CHECK_THROWS_AS(parse_slo_targets("ttft_p99=2"), ConfigError);         // a bound needs its unit
  CHECK_THROWS_AS(parse_slo_targets("ttft_p99=fast"), ConfigError);

  SummaryBlock b;
  b.set("p99_ttft_ms", 2100);
  b.set("mean_itl_ms", 99);
  b.set("p50_e2el_ms", std::numeric_limits<double>::quiet_NaN());  // no samples: cannot miss
  const auto v = slo_violations(t, b);
  REQUIRE(v.size() == 1);
  CHECK(v[0] == "p99_ttft_ms 2100 > 2000");
}

TEST_CASE("capacity search: doubling then bisection lands within tolerance of the boundary", "[sweep]") {
  const double boundary = 37.3;
  int calls = 0;
  auto feasible_below = [&](double x) {
    ++calls;
    CapacityTrial t;
    t.feasible = x <= boundary;
    return t;
  };
  CapacitySearchParams p;
  p.start = 5;
  p.tolerance = 0.01;
  auto r = search_capacity(p, feasible_below);
  REQUIRE(r.best);
  const double found = r.trials[*r.best].x;
  CHECK(found <= boundary);
  CHECK(*r.lowest_infeasible > boundary);
  CHECK(*r.lowest_infeasible - found <= 0.01 * found);
  // 5, 10, 20, 40 bracket it; bisection then halves [20, 40] until it is at most 1% of the
  // answer (~0.37): 20 / 2^6 = 0.31 after 6 more runs.
  CHECK(calls == 4 + 6);

  // Starting above the boundary halves down first.
  p.start = 500;
  r = search_capacity(p, feasible_below);
  REQUIRE(r.best);
  CHECK(r.trials[*r.best].x <= boundary);
  CHECK(r.trials[*r.best].x >= boundary * 0.99);

  // Whole numbers: the exact largest feasible integer.
  p.integer = true;
  p.start = 3;
  r = search_capacity(p, feasible_below);
  REQUIRE(r.best);
  CHECK(r.trials[*r.best].x == 37);
  CHECK(*r.lowest_infeasible == 38);

  // Never feasible: no answer. Always feasible with a cap: the cap, flagged.
  p.integer = false;
  r = search_capacity(p, [](double) { return CapacityTrial{}; });
  CHECK_FALSE(r.best);
  p.max_x = 64;
  r = search_capacity(p, [](double) { return CapacityTrial{0, true, ""}; });
  REQUIRE(r.best);
  CHECK(r.trials[*r.best].x == 64);
  CHECK(r.capped);
}

TEST_CASE("compare directions: latencies up - throughputs and completed down - rejected up are worse", "[sweep]") {
  CHECK(field_direction("p99_ttft_ms") == Direction::higher_is_worse);
  CHECK(field_direction("std_itl_ms") == Direction::higher_is_worse);
  CHECK(field_direction("output_throughput") == Direction::lower_is_worse);
  CHECK(field_direction("completed") == Direction::lower_is_worse);
  CHECK(field_direction("rejected") == Direction::higher_is_worse);
  CHECK(field_direction("total_input_tokens") == Direction::neutral);
  // The SLO's figures fall when worse, unit prices rise; a run's total cost is not gated.
  CHECK(field_direction("goodput") == Direction::lower_is_worse);
  CHECK(field_direction("goodput_mean_itl") == Direction::lower_is_worse);
  CHECK(field_direction("slo_attainment") == Direction::lower_is_worse);
  CHECK(field_direction("slo_met") == Direction::lower_is_worse);
  CHECK(field_direction("cost_per_1m_output_tokens") == Direction::higher_is_worse);
  CHECK(field_direction("paid_per_1m_output_tokens") == Direction::higher_is_worse);
  CHECK(field_direction("cost_usd") == Direction::neutral);
  Tolerances tol;
  tol.per_field["p99_ttft_ms"] = 0.1;
  tol.per_field["classes.chat.p99_ttft_ms"] = 0.2;
  CHECK(tol.for_field("overall", "p99_ttft_ms") == 0.1);
  CHECK(tol.for_field("classes.chat", "p99_ttft_ms") == 0.2);
  CHECK(tol.for_field("overall", "mean_ttft_ms") == 0.05);
}

TEST_CASE("sweep table: axis values become numbers when they are numbers", "[sweep]") {
  CHECK(axis_value_json("4") == 4);
  CHECK(axis_value_json("0.5") == 0.5);
  CHECK(axis_value_json("1e3") == 1000.0);
  CHECK(axis_value_json("chunked-prefill") == "chunked-prefill");
  CHECK(axis_value_json("nan") == "nan");
  CHECK(axis_value_json("0x10") == "0x10");
}

}  // namespace sweep_parts_test
