// timeseries.csv through the binary where the answer is known: intervals in which a replica
// is idle report what it holds (nothing, once its requests have finished), and waiting_max
// sees every request that waited, also those that queued between steps.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"

namespace timeseries_idle_test {

using namespace servesim::testing;

namespace {

// Two requests arrive together at 2 s and two more at 4 s; a replica of one sequence slot
// serves them one after the other (5 steps of 10 ms each), so the second of each pair
// waits 50 ms, and from 2.1 s to 4 s the replica holds nothing.
const char* kPairs = R"(name: pairs
seed: 1
stop: {requests: 4}
workload:
  - class: a
    arrival: {process: constant, rate: 0.5}
    input: {fixed: 100}
    output: {fixed: 5}
  - class: b
    arrival: {process: constant, rate: 0.5}
    input: {fixed: 100}
    output: {fixed: 5}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 1, max_batched_tokens: 2048, block_size: 16}
      cost_model: {constant: {step: 10ms}}
outputs: {timeseries: true, timeseries_interval: 500ms, requests_csv: true}
)";

using Row = std::map<std::string, std::string>;

std::vector<Row> read_csv(const std::string& text) {
  std::vector<Row> rows;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    if (header.empty()) {
      header = cells;
      continue;
    }
    Row row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

double num(const Row& row, const std::string& key) { return std::stod(row.at(key)); }

}  // namespace

TEST_CASE("timeseries intervals after every request has finished show nothing running and no KV held", "[cli][timeseries]") {
  TempDir dir("timeseries-pairs");
  const auto scenario = dir.write("pairs.yaml", kPairs);
  const auto r = run_cli("run " + scenario.string() + " --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto rows = read_csv(read_file(dir.path / "timeseries.csv"));
  REQUIRE(rows.size() == 5);  // 2.0 s to 4.0 s in steps of 0.5 s
  for (const Row& row : rows) {
    const double t = num(row, "time_s");
    if (t == 2.0 || t == 4.0) {
      CHECK(num(row, "steps") == 10);
      CHECK(num(row, "waiting_max") == 1);  // the second of the pair
      CHECK(num(row, "running_max") == 1);
      CHECK(num(row, "kv_used_blocks_max") == 7);  // ceil(104 / 16)
    } else {
      INFO("time_s " << t);
      CHECK(num(row, "steps") == 0);
      CHECK(num(row, "running_mean") == 0);
      CHECK(num(row, "running_max") == 0);
      CHECK(num(row, "batch_max") == 0);
      CHECK(num(row, "kv_used_blocks_max") == 0);
      CHECK(num(row, "kv_occupancy_mean") == 0);
      CHECK(num(row, "waiting_max") == 0);
    }
  }
  const auto requests = read_csv(read_file(dir.path / "requests.csv"));
  REQUIRE(requests.size() == 4);
  int waited = 0;
  for (const Row& q : requests) waited += num(q, "queue_ms") == 50;
  CHECK(waited == 2);
}

TEST_CASE("quickstart timeseries has waiting_max of at least 1 wherever a request arrived and waited", "[cli][timeseries]") {
  TempDir dir("timeseries-quickstart");
  const auto r = run_cli("run scenarios/quickstart.yaml --set outputs.timeseries=true --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto rows = read_csv(read_file(dir.path / "timeseries.csv"));
  const auto requests = read_csv(read_file(dir.path / "requests.csv"));
  REQUIRE(requests.size() == 2000);
  // (interval, replica) -> waiting_max; the interval is 1 s.
  std::map<std::pair<long, long>, double> waiting_max;
  for (const Row& row : rows) {
    waiting_max[{std::lround(num(row, "time_s")), std::lround(num(row, "replica"))}] = num(row, "waiting_max");
    if (num(row, "steps") == 0) {
      // Idle all interval: what it holds at the end is nothing (no prefix cache here).
      CHECK(num(row, "running_mean") == 0);
      CHECK(num(row, "kv_occupancy_mean") == 0);
    }
  }
  long waited = 0;
  for (const Row& q : requests) {
    if (q.at("queue_ms").empty() || num(q, "queue_ms") <= 0) continue;
    ++waited;
    const std::pair<long, long> key{static_cast<long>(std::floor(num(q, "arrival_s"))), std::lround(num(q, "replica"))};
    INFO("request " << q.at("id") << " arrived at " << q.at("arrival_s") << " s and waited " << q.at("queue_ms") << " ms");
    REQUIRE(waiting_max.count(key) == 1);
    CHECK(waiting_max[key] >= 1);
  }
  CHECK(waited > 0);
}

}  // namespace timeseries_idle_test
