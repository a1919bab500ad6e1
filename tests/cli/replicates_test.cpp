// `servesim run --replicates K`: each figure's mean over K seeds and the 95% interval of
// that mean (Student's t), checked against the K runs made one by one.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

#include "cli/cli_test_util.h"
#include "sim/metrics/replicate_intervals.h"

namespace replicates_test {

using namespace servesim;
using namespace servesim::testing;
using nlohmann::json;

namespace {

std::string poisson_scenario() {
  return "name: replicated\nseed: 5\nstop: {requests: 600}\n"
         "workload:\n  - class: default\n    arrival: {process: poisson, rate: 5}\n"
         "    input: {lognormal: {median: 800, sigma: 0.5}, max: 4000}\n    output: {fixed: 100}\n"
         "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n"
         "      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 2048, kv_cache_tokens: 200000}\n"
         "      cost_model: {constant: {step: 10ms}}\n"
         "outputs: {requests_csv: false}\n";
}

}  // namespace

TEST_CASE("replicates: Student's t quantiles and the interval of a mean", "[replicates]") {
  // Two-sided 95% points of Student's t (any statistics table).
  CHECK(student_t95(1) == Approx(12.706).epsilon(1e-4));
  CHECK(student_t95(2) == Approx(4.303).epsilon(1e-4));
  CHECK(student_t95(29) == Approx(2.045).epsilon(1e-3));
  CHECK(student_t95(100000) == Approx(1.960).epsilon(1e-3));
  // Three runs whose TTFT p99 is 1, 2 and 3 ms: mean 2, standard deviation 1, half-width
  // 4.303 x 1 / sqrt(3) = 2.484.
  std::vector<RunSummary> runs(3);
  for (int i = 0; i < 3; ++i) {
    runs[static_cast<std::size_t>(i)].overall.set("p99_ttft_ms", i + 1.0);
    runs[static_cast<std::size_t>(i)].overall.set("constant", 7.0);
  }
  const ReplicateIntervals r = replicate_intervals(runs, {1, 2, 3});
  REQUIRE(r.find("p99_ttft_ms"));
  CHECK(r.find("p99_ttft_ms")->mean == Approx(2));
  CHECK(r.find("p99_ttft_ms")->hi - 2 == Approx(4.303 / std::sqrt(3.0)).epsilon(1e-4));
  CHECK(r.find("p99_ttft_ms")->lo == Approx(2 - 4.303 / std::sqrt(3.0)).margin(1e-3));
  CHECK(r.find("constant")->lo == 7);
  CHECK(r.find("constant")->hi == 7);
}

TEST_CASE("replicates: the Wilson interval of a share of replicates", "[replicates]") {
  // Wilson (1927), z = 1.96: 10 of 10 -> [0.7225, 1]; 5 of 10 -> 0.5 +- 0.2628 (centre 0.5,
  // half-width 1.96/(1+0.38416) x sqrt(0.025 + 0.0096040) = 0.26341); 0 of 4 -> [0, 0.4899].
  const FigureInterval all = share_interval(10, 10);
  CHECK(all.mean == 1);
  CHECK(all.lo == Approx(0.7225).margin(1e-4));
  CHECK(all.hi == 1);
  const FigureInterval half = share_interval(5, 10);
  CHECK(half.lo == Approx(0.5 - 0.26341).margin(1e-4));
  CHECK(half.hi == Approx(0.5 + 0.26341).margin(1e-4));
  const FigureInterval none = share_interval(0, 4);
  CHECK(none.lo == 0);
  CHECK(none.hi == Approx(0.4899).margin(1e-4));
  // mean_interval: the same t interval as a figure's.
  const FigureInterval m = mean_interval({1, 2, 3});
  CHECK(m.mean == Approx(2));
  CHECK(m.hi == Approx(2 + 4.303 / std::sqrt(3.0)).epsilon(1e-4));
  CHECK(mean_interval({4, 4}).lo == 4);
}

TEST_CASE("replicates: run --replicates 4 equals four runs made one seed at a time", "[replicates][cli]") {
  TempDir dir("replicates");
  const auto scenario = dir.write("s.yaml", poisson_scenario()).string();
  const auto r = run_cli("run " + scenario + " --replicates 4 -o " + (dir.path / "all").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("over 4 seeds (5..8), mean and 95% interval of the mean:") != std::string::npos);
  const json all = json::parse(read_file(dir.path / "all" / "summary.json"));
  const json& rep = all["replicates"];
  CHECK(rep["n"] == 4);
  CHECK(rep["seeds"] == json::array({5, 6, 7, 8}));
  // The files are the first run's: its figures are seed 5's.
  std::vector<double> p99, throughput;
  for (int seed = 5; seed <= 8; ++seed) {
    const auto one = (dir.path / ("seed" + std::to_string(seed))).string();
    REQUIRE(run_cli("run " + scenario + " --quiet --seed " + std::to_string(seed) + " -o " + one).exit_code == 0);
    const json s = json::parse(read_file(one + "/summary.json"));
    p99.push_back(s["p99_ttft_ms"].get<double>());
    throughput.push_back(s["request_throughput"].get<double>());
    if (seed == 5) CHECK(s["p99_ttft_ms"] == all["p99_ttft_ms"]);
  }
  for (const auto& [field, values] : {std::pair{"p99_ttft_ms", p99}, std::pair{"request_throughput", throughput}}) {
    INFO(field);
    double mean = 0, squares = 0;
    for (double v : values) mean += v / 4;
    for (double v : values) squares += (v - mean) * (v - mean);
    const double half = 3.1824 * std::sqrt(squares / 3 / 4);  // t(3) = 3.182
    CHECK(rep[field]["mean"].get<double>() == Approx(mean).epsilon(1e-12));
    CHECK(rep[field]["hi"].get<double>() == Approx(mean + half).epsilon(1e-4));
    CHECK(rep[field]["lo"].get<double>() == Approx(mean - half).epsilon(1e-4));
    CHECK(rep[field]["hi"].get<double>() > rep[field]["lo"].get<double>());  // the seeds differ
  }
}

TEST_CASE("replicates: a trace replay is the same run under every seed and says so", "[replicates][cli]") {
  TempDir dir("replicates-trace");
  const auto r = run_cli("run scenarios/quickstart.yaml --set stop.requests=200 --replicates 3 -o " +
                         (dir.path / "q").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("the scenario draws nothing at random") != std::string::npos);
  const json s = json::parse(read_file(dir.path / "q" / "summary.json"));
  CHECK(s["replicates"]["median_ttft_ms"]["lo"] == s["replicates"]["median_ttft_ms"]["hi"]);
}

TEST_CASE("replicates: a count below 1 is refused", "[replicates][cli]") {
  for (const std::string command : {"run scenarios/quickstart.yaml", "capacity scenarios/quickstart.yaml",
                                    "search scenarios/quickstart.yaml --space scenarios/spaces/quickstart.yaml"}) {
    INFO(command);
    const auto r = run_cli(command + " --replicates 0");
    CHECK(r.exit_code == 2);
    // The study's own check (CapacityRequest::validate and the others): the request's field.
    CHECK(r.output.find("replicates: must be a whole number from 1 to 1000, got 0") != std::string::npos);
  }
}

namespace {

// One replica near its limit: at 60 req/s some seeds hold ttft p99 <= 500 ms and some do
// not, so capacities differ by seed and a search's shares lie strictly between 0 and 1.
std::string near_limit_scenario() {
  return "name: near-limit\nseed: 3\nstop: {requests: 1500}\n"
         "workload:\n  - class: default\n    arrival: {process: poisson, rate: 5}\n"
         "    input: {lognormal: {median: 800, sigma: 0.5}, max: 4000}\n    output: {fixed: 100}\n"
         "    slo: {ttft: 500ms}\n"
         "cluster:\n  pools:\n    - name: main\n      replicas: 1\n      model: llama-3-8b\n      hardware: h100-sxm\n"
         "      engine: {policy: chunked-prefill, max_num_seqs: 64, max_batched_tokens: 2048, kv_cache_tokens: 200000}\n"
         "      cost_model: {constant: {step: 10ms}}\n"
         "outputs: {requests_csv: false}\n";
}

}  // namespace

TEST_CASE("replicates: capacity --replicates 3 is the interval of three searches made one seed at a time",
          "[replicates][cli]") {
  TempDir dir("replicates-capacity");
  const auto scenario = dir.write("s.yaml", near_limit_scenario()).string();
  const auto r = run_cli("capacity " + scenario + " --replicates 3 --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json all = json::parse(r.output);
  const json& rep = all["replicates"];
  CHECK(rep["n"] == 3);
  CHECK(rep["seeds"] == json::array({3, 4, 5}));
  std::vector<double> capacities;
  for (int seed = 3; seed <= 5; ++seed) {
    const auto one = run_cli("capacity " + scenario + " --json --seed " + std::to_string(seed));
    REQUIRE(one.exit_code == 0);
    capacities.push_back(json::parse(one.output)["capacity"].get<double>());
    CHECK(rep["capacities"][static_cast<std::size_t>(seed - 3)].get<double>() == capacities.back());
  }
  CHECK(all["capacity"].get<double>() == capacities[0]);  // the trials shown are the first seed's
  CHECK(rep["infeasible"] == 0);
  const double mean = (capacities[0] + capacities[1] + capacities[2]) / 3;
  double squares = 0;
  for (double c : capacities) squares += (c - mean) * (c - mean);
  const double half = 4.3027 * std::sqrt(squares / 2 / 3);  // t(2) = 4.303
  CHECK(rep["mean"].get<double>() == Approx(mean));
  CHECK(rep["lo"].get<double>() == Approx(mean - half).epsilon(1e-4));
  CHECK(rep["hi"].get<double>() == Approx(mean + half).epsilon(1e-4));
  CHECK(rep["hi"].get<double>() > rep["lo"].get<double>());  // the seeds found different rates
  const auto text = run_cli("capacity " + scenario + " --replicates 3");
  CHECK(text.output.find("over 3 seeds (3..5): capacity ") != std::string::npos);
}

TEST_CASE("replicates: search ranks by the share of seeds that meet the SLO and marks the ones it cannot tell apart",
          "[replicates][cli]") {
  TempDir dir("replicates-search");
  const auto scenario = dir.write("s.yaml", near_limit_scenario()).string();
  const auto space = dir.write("space.yaml", "cluster.pools.0.replicas: [1, 2]\n").string();
  const std::string common = "search " + scenario + " --space " + space + " --rate 61 --jobs 1 ";
  const auto r = run_cli(common + "--replicates 8 -o " + (dir.path / "all").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json all = json::parse(read_file(dir.path / "all" / "search.json"));
  CHECK(all["replicates"] == 8);
  CHECK(all["pruned"] == 0);  // every candidate runs: the replica order says nothing of shares
  // Each candidate's count of seeds that met the SLO, from eight searches of one seed each.
  std::vector<int> met(2, 0);
  for (int seed = 3; seed < 11; ++seed) {
    const auto out = (dir.path / ("seed" + std::to_string(seed))).string();
    run_cli(common + "--no-prune --seed " + std::to_string(seed) + " -o " + out);
    const json one = json::parse(read_file(out + "/search.json"));
    for (std::size_t c = 0; c < 2; ++c) met[c] += one["rows"][c]["status"] == "feasible" ? 1 : 0;
  }
  INFO("one replica met the SLO under " << met[0] << " of 8 seeds, two under " << met[1]);
  REQUIRE(met[0] > 0);
  REQUIRE(met[0] < 8);  // the case is only a test when one replica is a gamble
  CHECK(met[1] == 8);
  for (std::size_t c = 0; c < 2; ++c) {
    CHECK(all["rows"][c]["replicates_met"] == met[c]);
    CHECK(all["rows"][c]["slo_probability"].get<double>() == Approx(met[c] / 8.0));
  }
  // The surer candidate wins though it costs twice as much; the cheaper one is ranked
  // second, and marked when its Wilson interval reaches the winner's (8 of 8: [0.676, 1]).
  CHECK(all["winner"] == 1);
  CHECK(all["ranking"] == json::array({1, 0}));
  CHECK(all["rows"][0]["tied_with_winner"] == (all["rows"][0]["slo_probability_hi"].get<double>() >= 0.6756));
  CHECK(r.output.find("met the SLO under 8 of 8 seeds") != std::string::npos);
}

TEST_CASE("replicates: sweep --replicates 3 gives each point the intervals run --replicates 3 gives it",
          "[replicates][cli]") {
  TempDir dir("replicates-sweep");
  const auto scenario = dir.write("s.yaml", poisson_scenario()).string();
  const std::string axis = " --axis workload.0.arrival.rate=3,6 --replicates 3 --jobs 1 -q -o ";
  REQUIRE(run_cli("sweep " + scenario + axis + (dir.path / "sweep").string()).exit_code == 0);
  const json table = json::parse(read_file(dir.path / "sweep" / "sweep.json"));
  for (std::size_t p = 0; p < 2; ++p) {
    const std::string rate = p == 0 ? "3" : "6";
    const auto one = (dir.path / ("run" + rate)).string();
    REQUIRE(run_cli("run " + scenario + " --quiet --replicates 3 --set workload.0.arrival.rate=" + rate + " -o " + one)
                .exit_code == 0);
    const json run = json::parse(read_file(one + "/summary.json"));
    const json& row = table["rows"][p];
    CHECK(row["replicates"]["n"] == 3);
    for (const std::string field : {"p99_ttft_ms", "mean_e2el_ms", "output_throughput"}) {
      INFO(field << " at rate " << rate);
      CHECK(row["replicates"][field]["lo"] == run["replicates"][field]["lo"]);
      CHECK(row["replicates"][field]["hi"] == run["replicates"][field]["hi"]);
      CHECK(row["summary"][field] == run[field]);  // the row's own figures are the first seed's
    }
  }
  const std::string csv = read_file(dir.path / "sweep" / "sweep.csv");
  CHECK(csv.find(",p99_ttft_ms_lo,p99_ttft_ms_hi,") != std::string::npos);
  // Shards merged: the same table, intervals included.
  for (int i = 0; i < 2; ++i)
    REQUIRE(run_cli("sweep " + scenario + axis + (dir.path / ("shard" + std::to_string(i))).string() + " --shard " +
                    std::to_string(i) + "/2")
                .exit_code == 0);
  REQUIRE(run_cli("merge " + (dir.path / "shard0").string() + " " + (dir.path / "shard1").string() + " -o " +
                  (dir.path / "merged").string())
              .exit_code == 0);
  CHECK(read_file(dir.path / "merged" / "sweep.csv") == csv);
}

}  // namespace replicates_test
