// `servesim sweep` and `servesim merge` end to end through the real binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli/cli_test_util.h"
#include "cli/sweep_test_util.h"

namespace sweep_test {

using namespace servesim::testing;
using nlohmann::json;

namespace {

std::vector<std::string> csv_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("sweep: mean TTFT over the arrival rate follows the M/D/1 curve", "[sweep]") {
  TempDir dir("sweep-md1");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 100000));
  const auto r = run_cli("sweep " + scenario.string() + " --axis workload.0.arrival.rate=30,50,70 --jobs 2 -q --out " +
                         (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json t = json::parse(read_file(dir.path / "out" / "sweep.json"));
  REQUIRE(t["rows"].size() == 3);
  const double rates[] = {30, 50, 70};
  for (int i = 0; i < 3; ++i) {
    const json& row = t["rows"][i];
    CHECK(row["point"] == i);
    CHECK(row["values"]["workload.0.arrival.rate"].get<double>() == rates[i]);
    CHECK(row["summary"]["completed"] == 100000);
    const double rho = rates[i] / 100.0;
    const double expected = md1_mean_sojourn_ms(10.0, rho);  // 12.14, 15.0, 21.67 ms
    const double got = row["summary"]["mean_ttft_ms"].get<double>();
    INFO("rho " << rho << ": M/D/1 W = " << expected << " ms, simulated " << got << " ms");
    CHECK(std::abs(got - expected) / expected < 0.025);
    // Throughput equals the offered rate when the queue is stable: 100000 requests over
    // the time of 100000 Poisson arrivals, within 1% (sd of that time is 0.3%).
    CHECK(row["summary"]["request_throughput"].get<double>() == Approx(rates[i]).epsilon(0.01));
  }
  // The CSV has the same rows and numbers as the JSON.
  const auto lines = csv_lines(read_file(dir.path / "out" / "sweep.csv"));
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].rfind("point,workload.0.arrival.rate,pareto,pareto_excluded,error,completed,rejected,", 0) == 0);
  CHECK(lines[1].rfind("0,30,", 0) == 0);
  std::ostringstream mean2;
  mean2 << t["rows"][2]["summary"]["mean_ttft_ms"].dump();
  CHECK(lines[3].find("," + mean2.str() + ",") != std::string::npos);
}

TEST_CASE("sweep: --jobs 1 and --jobs 2 write byte-identical tables", "[sweep]") {
  TempDir dir("sweep-jobs");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 3000));
  const std::string axes =
      " --axis workload.0.arrival.rate=20,40,60,80 --axis 'cluster.pools.0.cost_model={constant: {step: 5ms}},"
      "{constant: {step: 10ms}}' -q --out ";
  const auto a = run_cli("sweep " + scenario.string() + axes + (dir.path / "j1").string() + " --jobs 1");
  const auto b = run_cli("sweep " + scenario.string() + axes + (dir.path / "j2").string() + " --jobs 2");
  INFO(a.output << b.output);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const std::string ja = read_file(dir.path / "j1" / "sweep.json");
  CHECK(json::parse(ja)["rows"].size() == 8);
  CHECK(ja == read_file(dir.path / "j2" / "sweep.json"));
  CHECK(read_file(dir.path / "j1" / "sweep.csv") == read_file(dir.path / "j2" / "sweep.csv"));
}

TEST_CASE("sweep: the product varies the last axis fastest - --zip pairs values", "[sweep]") {
  TempDir dir("sweep-order");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 200));
  const auto p = run_cli("sweep " + scenario.string() + " --axis workload.0.arrival.rate=10,20 --axis seed=1,2,3 -q --out " +
                         (dir.path / "p").string());
  REQUIRE(p.exit_code == 0);
  const json tp = json::parse(read_file(dir.path / "p" / "sweep.json"));
  REQUIRE(tp["points"] == 6);
  REQUIRE(tp["rows"].size() == 6);
  CHECK(tp["rows"][1]["values"]["workload.0.arrival.rate"] == 10);
  CHECK(tp["rows"][1]["values"]["seed"] == 2);
  CHECK(tp["rows"][3]["values"]["workload.0.arrival.rate"] == 20);
  CHECK(tp["rows"][3]["values"]["seed"] == 1);

  const auto z = run_cli("sweep " + scenario.string() + " --axis workload.0.arrival.rate=10,20,30 --axis seed=1,2,3 --zip -q --out " +
                         (dir.path / "z").string());
  REQUIRE(z.exit_code == 0);
  const json tz = json::parse(read_file(dir.path / "z" / "sweep.json"));
  REQUIRE(tz["rows"].size() == 3);
  CHECK(tz["mode"] == "zip");
  CHECK(tz["rows"][2]["values"]["workload.0.arrival.rate"] == 30);
  CHECK(tz["rows"][2]["values"]["seed"] == 3);

  const auto bad = run_cli("sweep " + scenario.string() + " --axis workload.0.arrival.rate=10,20 --axis seed=1,2,3 --zip -q --out " +
                           (dir.path / "bad").string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--zip") != std::string::npos);
}

TEST_CASE("sweep: shards 0/2 and 1/2 merged equal the unsharded table byte for byte", "[sweep]") {
  TempDir dir("sweep-shards");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 2000));
  const std::string axes = " --axis workload.0.arrival.rate=20,40,60,80,95 --axis seed=1,2 -q";
  REQUIRE(run_cli("sweep " + scenario.string() + axes + " --out " + (dir.path / "all").string()).exit_code == 0);
  REQUIRE(run_cli("sweep " + scenario.string() + axes + " --shard 0/2 --out " + (dir.path / "s0").string()).exit_code == 0);
  REQUIRE(run_cli("sweep " + scenario.string() + axes + " --shard 1/2 --out " + (dir.path / "s1").string()).exit_code == 0);

  // Round-robin slices: shard 0 holds the even points, shard 1 the odd ones.
  const json s0 = json::parse(read_file(dir.path / "s0" / "sweep.json"));
  const json s1 = json::parse(read_file(dir.path / "s1" / "sweep.json"));
  REQUIRE(s0["rows"].size() == 5);
  REQUIRE(s1["rows"].size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(s0["rows"][i]["point"] == 2 * i);
    CHECK(s1["rows"][i]["point"] == 2 * i + 1);
  }
  CHECK(s0["shard"] == "0/2");

  // The order of the inputs does not matter.
  const auto m = run_cli("merge " + (dir.path / "s1" / "sweep.json").string() + " " + (dir.path / "s0").string() +
                         " -q -o " + (dir.path / "merged").string());
  INFO(m.output);
  REQUIRE(m.exit_code == 0);
  const std::string whole = read_file(dir.path / "all" / "sweep.json");
  CHECK(whole == read_file(dir.path / "merged" / "sweep.json"));
  CHECK(read_file(dir.path / "all" / "sweep.csv") == read_file(dir.path / "merged" / "sweep.csv"));
  // The front is over all points: a row is marked exactly when no other row has at least
  // its output throughput and at most its p99 TTFT and ITL, one of them strictly.
  const json all = json::parse(whole);
  int front = 0;
  for (const auto& b : all["rows"]) {
    bool beaten = false;
    for (const auto& a : all["rows"]) {
      const auto &sa = a["summary"], &sb = b["summary"];
      const double ta = sa["output_throughput"], tb = sb["output_throughput"];
      // One output token: no ITL sample in any row (null, or 0 where a figure without samples
      // reads 0), an objective the front ignores.
      auto itl = [](const json& s) { return s["p99_itl_ms"].is_null() ? 0.0 : s["p99_itl_ms"].get<double>(); };
      const double fa = sa["p99_ttft_ms"], fb = sb["p99_ttft_ms"], ia = itl(sa), ib = itl(sb);
      if (ta >= tb && fa <= fb && ia <= ib && (ta > tb || fa < fb || ia < ib)) beaten = true;
    }
    CHECK(b["pareto"].get<bool>() == !beaten);
    front += beaten ? 0 : 1;
  }
  CHECK(front >= 1);

  // -o OUT.json writes OUT.json and OUT.csv.
  REQUIRE(run_cli("merge " + (dir.path / "s0").string() + " " + (dir.path / "s1").string() + " -q -o " +
                  (dir.path / "m.json").string()).exit_code == 0);
  CHECK(read_file(dir.path / "m.json") == whole);
  CHECK(read_file(dir.path / "m.csv") == read_file(dir.path / "all" / "sweep.csv"));

  // A missing shard, or one given twice, is bad input.
  const auto missing = run_cli("merge " + (dir.path / "s0").string() + " -q -o " + (dir.path / "x").string());
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("5 of 10 points are in no table") != std::string::npos);
  const auto twice = run_cli("merge " + (dir.path / "s0").string() + " " + (dir.path / "s0").string() + " -q -o " +
                             (dir.path / "x").string());
  CHECK(twice.exit_code == 2);
  CHECK(twice.output.find("point 0 is also in") != std::string::npos);
}

TEST_CASE("sweep: a bad axis value fails before any point runs - naming the key", "[sweep]") {
  TempDir dir("sweep-bad");
  const auto scenario = dir.write("md1.yaml", md1_scenario(50, 200));
  const auto r = run_cli("sweep " + scenario.string() + " --axis workload.0.arrival.rate=10,-5 -q --out " +
                         (dir.path / "out").string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("workload.0.arrival.rate") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.path / "out" / "sweep.json"));
  CHECK(run_cli("sweep " + scenario.string() + " -q").exit_code == 2);  // no axis
  CHECK(run_cli("sweep " + scenario.string() + " --axis seed=1 --shard 2/2 -q").exit_code == 2);
  CHECK(run_cli("sweep " + scenario.string() + " --axis seed=1,,2 -q").exit_code == 2);
}

TEST_CASE("sweep: a point whose model does not fit is a row with its error - not a failed sweep", "[sweep]") {
  TempDir dir("sweep-fail");
  std::string text = md1_scenario(50, 300);
  const std::string kv = ", kv_cache_tokens: 10000000";
  text.erase(text.find(kv), kv.size());  // memory decides the KV size, so 70B at tp 1 does not fit
  const auto scenario = dir.write("md1.yaml", text);
  const auto r = run_cli("sweep " + scenario.string() + " --axis cluster.pools.0.model=llama-3-8b,llama-3-70b -q "
                         "--point-summaries --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json t = json::parse(read_file(dir.path / "out" / "sweep.json"));
  REQUIRE(t["rows"].size() == 2);
  CHECK(t["rows"][0]["error"].is_null());
  CHECK(t["rows"][0]["pareto"] == true);
  CHECK(t["rows"][1]["summary"].is_null());
  CHECK(t["rows"][1]["pareto"] == false);
  CHECK(t["rows"][1]["error"].get<std::string>().find("does not fit") != std::string::npos);
  // --point-summaries wrote the run that worked, and its figures match the table's.
  const json s = json::parse(read_file(dir.path / "out" / "points" / "0" / "summary.json"));
  CHECK(s["completed"] == 300);
  CHECK(s["p99_ttft_ms"] == t["rows"][0]["summary"]["p99_ttft_ms"]);
  CHECK(!std::filesystem::exists(dir.path / "out" / "points" / "1"));
}

}  // namespace sweep_test
