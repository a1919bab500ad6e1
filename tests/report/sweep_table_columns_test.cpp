// The sweep table's figures a configuration is chosen on: the console table's served req/s
// (over the arrival window), TPOT p99, cost per 1M output tokens and SLO attainment columns
// (sim/report/sweep_report.h), and sweep.json's "context", which survives a read and a merge.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/report/sweep_report.h"
#include "sim/study/sweep_table.h"

namespace sweep_table_columns_test {

using namespace servesim;
using ojson = nlohmann::ordered_json;

namespace {

// One point of 3 replicas with figures chosen by hand.
SweepTable one_point_table() {
  SweepTable t;
  t.scenario = "demo";
  t.axes = {"cluster.pools.0.replicas"};
  t.points = 1;
  ojson row = ojson::object();
  row["point"] = 0;
  row["values"] = {{"cluster.pools.0.replicas", 3}};
  row["pareto"] = true;
  row["pareto_excluded"] = nullptr;
  row["error"] = nullptr;
  row["summary"] = {{"completed", 600},           {"request_throughput", 27.01},  {"sustained_served_rate", 36.954},
                    {"output_throughput", 7063.7}, {"p99_ttft_ms", 115.614},       {"p99_tpot_ms", 11.704},
                    {"p99_itl_ms", 30.561},        {"slo_attainment", 0.9875},     {"paid_per_1m_output_tokens", 0.35388}};
  t.rows.push_back(row);
  t.context = {{"scenario", "demo"}, {"classes", ojson::array()}};
  return t;
}

}  // namespace

TEST_CASE("sweep console table: served req/s - TPOT p99 - cost per 1M output tokens and SLO attainment columns",
          "[report][sweep]") {
  std::ostringstream out;
  print_sweep_table(one_point_table(), out);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("completed  req/s  served req/s  out tok/s  TTFT p99  TPOT p99  ITL p99  $/1M out  SLO att.  pareto") !=
        std::string::npos);
  // served 2 decimals, TPOT 2, cost 4, attainment 3: 36.954 -> 36.95, 11.704 -> 11.70,
  // 0.35388 -> 0.3539, 0.9875 -> 0.988 (0.9875 is a little above it as a double).
  CHECK(text.find("27.01         36.95     7063.7    115.61     11.70    30.56    0.3539     0.988       *") !=
        std::string::npos);
}

TEST_CASE("sweep table: the context is written - read back - merged and must be an object", "[report][sweep]") {
  const SweepTable table = one_point_table();
  const ojson written = sweep_table_to_json(table);
  CHECK(written["context"]["scenario"] == "demo");
  const SweepTable read = sweep_table_from_json(written, "sweep.json");
  CHECK(read.context == table.context);
  CHECK(merge_sweep_tables({read}, {"sweep.json"}, false).context == table.context);
  // A sweep.json written before it had one: no context, and none written back.
  ojson old = written;
  old.erase("context");
  CHECK(sweep_table_from_json(old, "sweep.json").context.is_null());
  CHECK_FALSE(sweep_table_to_json(sweep_table_from_json(old, "sweep.json")).contains("context"));
  old["context"] = "quickstart";
  CHECK_THROWS_WITH(sweep_table_from_json(old, "sweep.json"), Catch::Contains("must be an object"));
}

}  // namespace sweep_table_columns_test
