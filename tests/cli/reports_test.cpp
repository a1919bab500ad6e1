// timeseries.csv and trace.json through the real binary, checked against the run's own
// requests.csv and summary.json.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "cli/cli_test_util.h"

namespace reports_test {

using namespace servesim::testing;

namespace {

// Isolated requests: one every 100 ms, each a 100-token prompt and 5 outputs, every step
// 10 ms. A request takes one prefill step and four decode steps (50 ms) and is gone before
// the next arrives, so every figure can be worked out by hand.
const char* kRegular = R"(name: regular
seed: 1
stop: {requests: 20}
workload:
  - class: solo
    arrival: {process: constant, rate: 10}
    input: {fixed: 100}
    output: {fixed: 5}
cluster:
  pools:
    - name: main
      replicas: 1
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 8, max_batched_tokens: 2048, block_size: 16}
      cost_model: {constant: {step: 10ms}}
outputs: {timeseries: true, timeseries_interval: 1s, chrome_trace: true}
)";

// Queueing, batching and two replicas: a real trace to check spans against.
const char* kBusy = R"(name: busy
seed: 5
stop: {requests: 200}
workload:
  - class: chat
    arrival: {process: poisson, rate: 40}
    input: {lognormal: {median: 800, sigma: 0.5}, max: 3000}
    output: {uniform: [2, 120]}
cluster:
  pools:
    - name: main
      replicas: 2
      model: llama-3-8b
      hardware: h100-sxm
      engine: {policy: chunked-prefill, max_num_seqs: 32, max_batched_tokens: 1024}
  router: round-robin
outputs: {chrome_trace: true, timeseries: true, timeseries_interval: 500ms}
)";

std::vector<std::map<std::string, std::string>> read_csv(const std::string& text) {
  std::vector<std::map<std::string, std::string>> rows;
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
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

double num(const std::map<std::string, std::string>& row, const std::string& key) { return std::stod(row.at(key)); }

}  // namespace

TEST_CASE("timeseries.csv of isolated requests adds up to the run and shows batch 1 and 7 KV blocks", "[cli][timeseries]") {
  TempDir dir("timeseries");
  const auto scenario = dir.write("regular.yaml", kRegular);
  const auto r = run_cli("run " + scenario.string() + " --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("timeseries.csv") != std::string::npos);
  const auto rows = read_csv(read_file(dir.path / "timeseries.csv"));
  REQUIRE(rows.size() >= 2);
  double steps = 0, prefill = 0, decode = 0, output = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    CHECK(row.at("pool") == "main");
    if (i > 0) CHECK(num(row, "time_s") == Approx(num(rows[i - 1], "time_s") + 1.0));
    steps += num(row, "steps");
    prefill += num(row, "prefill_tokens");
    decode += num(row, "decode_tokens");
    output += num(row, "output_tokens");
    // Whole requests per interval: 5 steps of 10 ms each.
    CHECK(static_cast<long>(num(row, "steps")) % 5 == 0);
    CHECK(num(row, "busy_s") == Approx(num(row, "steps") * 0.010));
    CHECK(num(row, "output_tokens_per_s") == Approx(num(row, "output_tokens")));
    if (num(row, "steps") > 0) {
      CHECK(num(row, "batch_mean") == 1);
      CHECK(num(row, "batch_max") == 1);
      CHECK(num(row, "waiting_max") == 0);
      CHECK(num(row, "running_max") == 1);
      // 100 prompt tokens, then at most 104 in KV: ceil(104 / 16) = 7 blocks.
      CHECK(num(row, "kv_used_blocks_max") == 7);
      CHECK(num(row, "kv_occupancy_max") == Approx(7.0 / num(row, "kv_total_blocks")).epsilon(1e-5));
    }
  }
  CHECK(steps == 20 * 5);
  CHECK(prefill == 20 * 100);
  CHECK(decode == 20 * 4);
  CHECK(output == 20 * 5);
}

TEST_CASE("trace.json has one step event per engine step and request spans that match requests.csv", "[cli][trace]") {
  TempDir dir("trace");
  const auto scenario = dir.write("busy.yaml", kBusy);
  const auto r = run_cli("run " + scenario.string() + " --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  const auto trace = nlohmann::json::parse(read_file(dir.path / "trace.json"));
  const auto summary = nlohmann::json::parse(read_file(dir.path / "summary.json"));
  const auto requests = read_csv(read_file(dir.path / "requests.csv"));
  REQUIRE(requests.size() == 200);
  REQUIRE(trace.contains("traceEvents"));

  // The console line "N engine steps" against the step events.
  const auto at = r.output.find(" engine steps");
  REQUIRE(at != std::string::npos);
  const long engine_steps = std::stol(r.output.substr(r.output.rfind(' ', at - 1) + 1));

  const int requests_pid = 2;  // pool 0 is pid 1
  long steps = 0, prefill_tokens = 0, decode_tokens = 0;
  std::map<int, double> replica_free_us;  // tid -> end of its last step
  std::map<long, std::map<std::string, double>> spans;  // request id -> name -> dur (us)
  std::map<long, double> first_ts;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["pid"] == 1) {
      REQUIRE(e["name"] == "step");
      ++steps;
      prefill_tokens += e["args"]["prefill_tokens"].get<long>();
      decode_tokens += e["args"]["decode_tokens"].get<long>();
      CHECK(e["args"]["batch"].get<long>() >= 1);
      const int tid = e["tid"].get<int>();
      // Steps of one replica never overlap.
      CHECK(e["ts"].get<double>() >= replica_free_us[tid] - 1e-6);
      replica_free_us[tid] = e["ts"].get<double>() + e["dur"].get<double>();
    } else {
      REQUIRE(e["pid"] == requests_pid);
      const long id = e["tid"].get<long>();
      spans[id][e["name"].get<std::string>()] = e["dur"].get<double>();
      if (!first_ts.count(id)) first_ts[id] = e["ts"].get<double>();
    }
  }
  CHECK(steps == engine_steps);
  CHECK(replica_free_us.size() == 2);
  // No prefix cache and no preemption here: every prompt token is computed exactly once,
  // and every output token but each request's first comes from a decode.
  REQUIRE(summary["completed"] == 200);
  CHECK(prefill_tokens == summary["total_input_tokens"].get<long>());
  CHECK(decode_tokens == summary["total_output_tokens"].get<long>() - 200);

  long queued_spans = 0;
  for (const auto& row : requests) {
    const long id = std::stol(row.at("id"));
    REQUIRE(spans.count(id));
    auto& s = spans[id];
    queued_spans += s.count("queued");
    CHECK(first_ts[id] / 1000.0 == Approx(num(row, "arrival_s") * 1000.0).margin(1e-6));
    CHECK(s["queued"] / 1000.0 == Approx(num(row, "queue_ms")).margin(1e-6));
    CHECK((s["queued"] + s["prefill"]) / 1000.0 == Approx(num(row, "ttft_ms")).margin(1e-6));
    CHECK((s["queued"] + s["prefill"] + s["decode"]) / 1000.0 == Approx(num(row, "e2el_ms")).margin(1e-6));
  }
  CHECK(queued_spans > 0);  // 40 req/s on two replicas does queue some
}

TEST_CASE("timeseries and trace work alongside the invariant checker", "[cli][trace]") {
  TempDir dir("trace-check");
  const auto scenario = dir.write("busy.yaml", kBusy);
  const auto r = run_cli("run " + scenario.string() + " --check-invariants --out " + dir.path.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("invariants (docs/INVARIANTS.md): all held") != std::string::npos);
  CHECK(std::filesystem::exists(dir.path / "timeseries.csv"));
  CHECK(std::filesystem::exists(dir.path / "trace.json"));
  CHECK_FALSE(std::filesystem::exists(dir.path / "trace.json.partial"));
  // Not a terminal: no progress line on stderr.
  CHECK(r.output.find("requests done") == std::string::npos);
}

TEST_CASE("a timeseries interval of zero is refused with its key", "[cli][timeseries]") {
  TempDir dir("timeseries-zero");
  std::string text = kRegular;
  text.replace(text.find("timeseries_interval: 1s"), 23, "timeseries_interval: 0s");
  const auto scenario = dir.write("zero.yaml", text);
  const auto r = run_cli("run " + scenario.string() + " --out " + dir.path.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("outputs.timeseries_interval") != std::string::npos);
}

}  // namespace reports_test
