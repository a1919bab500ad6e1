// A benchmark file replayed as a workload class through `servesim run`: send times kept
// exactly, vllm's --max-concurrency cap held, bad files and keys refused with exit 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"

namespace benchmark_replay_test {

using namespace servesim::testing;

namespace {

// TRACE is the class's trace mapping.
const char* kReplay = R"(name: replay
seed: 3
workload:
  - class: bench
    trace: TRACE
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      engine: {max_num_seqs: 64}
      cost_model: {constant: {step: 10ms}}
)";

std::string scenario(const std::string& trace) {
  std::string text = kReplay;
  text.replace(text.find("TRACE"), 5, trace);
  return text;
}

// A vllm bench serve file of an older version (no start_times): six requests of 500 prompt
// and 40 output tokens, sent at rate inf with the given max_concurrency ("null": none).
std::string six_requests(const std::string& max_concurrency) {
  return "{\"backend\": \"vllm\", \"model_id\": \"m\", \"request_rate\": \"inf\", \"burstiness\": 1.0,\n"
         "\"max_concurrency\": " + max_concurrency + ", \"duration\": 2.0, \"completed\": 6, \"failed\": 0,\n"
         "\"input_lens\": [500, 500, 500, 500, 500, 500],\n"
         "\"output_lens\": [40, 40, 40, 40, 40, 40],\n"
         "\"ttfts\": [0.1, 0.1, 0.1, 0.1, 0.1, 0.1],\n"
         "\"itls\": [[0.01], [0.01], [0.01], [0.01], [0.01], [0.01]],\n"
         "\"errors\": [\"\", \"\", \"\", \"\", \"\", \"\"]}\n";
}

std::vector<CsvRequest> run_rows(const TempDir& dir, const std::string& trace) {
  const auto path = dir.write("replay.yaml", scenario(trace));
  const CliResult r = run_cli("run " + path.string() + " --quiet --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return parse_requests_csv(read_file(dir.path / "out" / "requests.csv"));
}

// The most requests in flight at once: intervals [arrival, arrival + e2el), a finish
// before an arrival at the same instant.
int peak_in_flight(const std::vector<CsvRequest>& rows) {
  std::vector<std::pair<std::int64_t, int>> events;
  for (const CsvRequest& r : rows) {
    events.emplace_back(r.arrival_ns, +1);
    events.emplace_back(r.arrival_ns + r.e2el_ns, -1);
  }
  std::sort(events.begin(), events.end());
  int now = 0, peak = 0;
  for (const auto& e : events) peak = std::max(peak, now += e.second);
  return peak;
}

}  // namespace

TEST_CASE("replay: vllm's max_concurrency keeps at most that many requests in flight", "[cli][workload][benchmark]") {
  TempDir dir("bench-cap");
  dir.write("capped.json", six_requests("2"));
  std::vector<CsvRequest> rows =
      run_rows(dir, "{format: vllm-bench, path: " + (dir.path / "capped.json").string() + "}");
  REQUIRE(rows.size() == 6);
  for (const CsvRequest& r : rows) {
    REQUIRE(r.outcome == "completed");
    CHECK(r.prompt_tokens == 500);
    CHECK(r.output_tokens_done == 40);
  }
  CHECK(peak_in_flight(rows) == 2);
  std::sort(rows.begin(), rows.end(), [](const CsvRequest& a, const CsvRequest& b) { return a.arrival_ns < b.arrival_ns; });
  CHECK(rows[0].arrival_ns == 0);
  CHECK(rows[1].arrival_ns == 0);
  // Every later request was sent the moment an earlier one finished (the semaphore).
  for (std::size_t i = 2; i < rows.size(); ++i) {
    INFO("request sent " << i << "th");
    CHECK(rows[i].arrival_ns > 0);
    bool at_a_finish = false;
    for (std::size_t j = 0; j < i; ++j) at_a_finish |= rows[j].arrival_ns + rows[j].e2el_ns == rows[i].arrival_ns;
    CHECK(at_a_finish);
  }

  // The same file without a cap: all six at t = 0, all in flight together.
  TempDir open_dir("bench-nocap");
  open_dir.write("open.json", six_requests("null"));
  const std::vector<CsvRequest> open_rows =
      run_rows(open_dir, "{format: benchmark, path: " + (open_dir.path / "open.json").string() + "}");
  REQUIRE(open_rows.size() == 6);
  for (const CsvRequest& r : open_rows) CHECK(r.arrival_ns == 0);
  CHECK(peak_in_flight(open_rows) == 6);
}

TEST_CASE("replay: a file's send times are the arrivals in requests.csv", "[cli][workload][benchmark]") {
  TempDir dir("bench-times");
  const std::vector<CsvRequest> rows =
      run_rows(dir, "{format: vllm-bench, path: tests/data/benchmarks/vllm_bench_inf_concurrency.json, speedup: 2}");
  REQUIRE(rows.size() == 5);
  std::vector<std::int64_t> arrivals;
  for (const CsvRequest& r : rows) arrivals.push_back(r.arrival_ns);
  std::sort(arrivals.begin(), arrivals.end());
  // 0, 0, 250, 312.5 and 406.25 ms in the file, halved.
  CHECK(arrivals == std::vector<std::int64_t>{0, 0, 125'000'000, 156'250'000, 203'125'000});
}

TEST_CASE("replay: bad benchmark traces exit 2 naming file and line and key", "[cli][workload][benchmark]") {
  TempDir dir("bench-errors");
  const auto run_text = [&](const std::string& yaml) {
    const auto path = dir.write("bad.yaml", yaml);
    return run_cli("run " + path.string() + " --quiet --out " + (dir.path / "out").string());
  };
  // A field of the benchmark file that is wrong: its file, line and name.
  std::string broken = six_requests("2");
  broken.replace(broken.find("\"ttfts\": [0.1,"), 14, "\"ttfts\": [-0.1,");
  dir.write("broken.json", broken);
  CliResult r = run_text(scenario("{format: vllm-bench, path: " + (dir.path / "broken.json").string() + "}"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("broken.json:5: ttfts[0]: must be >= 0") != std::string::npos);
  INFO(r.output);

  // `arrival` beside a benchmark trace: the file says how requests arrive.
  std::string with_arrival = scenario("{format: vllm-bench, path: tests/data/benchmarks/vllm_bench_detailed.json}");
  with_arrival.insert(with_arrival.find("cluster:"), "    arrival: {process: poisson, rate: 1}\n");
  r = run_text(with_arrival);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("workload.0.arrival") != std::string::npos);

  // `stage` belongs to the benchmark formats; a stage the file does not have is named.
  r = run_text(scenario("{format: lengths, path: tests/data/benchmarks/vllm_bench_detailed.json, stage: 0}"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("'stage' applies to the benchmark formats only") != std::string::npos);
  r = run_text(scenario("{format: vllm-bench, path: tests/data/benchmarks/vllm_bench_detailed.json, stage: 1}"));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("workload.bench.trace.stage: is 1, but the file has 1 stage (index 0)") != std::string::npos);
  INFO(r.output);
}

}  // namespace benchmark_replay_test
