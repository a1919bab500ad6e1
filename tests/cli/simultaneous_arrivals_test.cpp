// Requests that arrive at the same instant (a benchmark at infinite request rate, a trace
// with equal timestamps, a closed loop's users at t = 0) are scheduled together, up to the
// batch limits, not one per step.
#include <catch2/catch.hpp>

#include <string>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"

namespace simultaneous_arrivals_test {

using namespace servesim::testing;

namespace {

// 64 requests of 100 prompt tokens and 8 output tokens, all at t = 0. ENGINE and ARRIVAL
// (the class's source) are filled in below.
const char* kBurst = R"(name: burst
seed: 1
stop: {requests: 64}
workload:
  - class: burst
    ARRIVAL
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      engine: ENGINE
)";

std::vector<CsvRequest> run_burst(const TempDir& dir, const std::string& arrival, const std::string& engine) {
  std::string text = kBurst;
  text.replace(text.find("ARRIVAL"), 7, arrival);
  text.replace(text.find("ENGINE"), 6, engine);
  const auto path = dir.write("burst.yaml", text);
  const CliResult r = run_cli("run " + path.string() + " --quiet --out " + (dir.path / "out").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::vector<CsvRequest> rows = parse_requests_csv(read_file(dir.path / "out" / "requests.csv"));
  REQUIRE(rows.size() == 64);
  for (const CsvRequest& row : rows) REQUIRE(row.arrival_ns == 0);
  return rows;
}

// Requests whose first step was the run's first step (it starts at t = 0).
int in_first_step(const std::vector<CsvRequest>& rows) {
  int n = 0;
  for (const CsvRequest& row : rows) n += row.queue_ns == 0 ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("burst: 64 requests at one instant share the first step when the limits allow", "[cli][workload]") {
  TempDir dir("burst");
  // A closed loop's users all send at t = 0; a trace of equal timestamps does the same
  // through an open-loop source.
  dir.write("burst.csv", [] {
    std::string csv = "arrival_s,input_tokens,output_tokens\n";
    for (int i = 0; i < 64; ++i) csv += "0,100,8\n";
    return csv;
  }());
  const std::string closed = "arrival: {process: closed, concurrency: 64}\n    input: {fixed: 100}\n    output: {fixed: 8}";
  const std::string trace = "trace: {format: csv, path: " + (dir.path / "burst.csv").string() + "}";
  for (const std::string& arrival : {closed, trace}) {
    CAPTURE(arrival);
    // 64 x 100 = 6400 prompt tokens fit the 8192-token budget and the 256 sequences: one step.
    const auto rows = run_burst(dir, arrival, "{policy: chunked-prefill, max_batched_tokens: 8192}");
    CHECK(in_first_step(rows) == 64);
    for (const CsvRequest& row : rows) CHECK(row.ttft_ns == rows.front().ttft_ns);

    // The limits still hold: 16 sequences at most ...
    CHECK(in_first_step(run_burst(dir, arrival, "{policy: chunked-prefill, max_num_seqs: 16}")) == 16);
    // ... and 2048 tokens: 20 whole prompts and a 48-token chunk of the 21st.
    CHECK(in_first_step(run_burst(dir, arrival, "{policy: chunked-prefill, max_batched_tokens: 2048}")) == 21);
  }
}

}  // namespace simultaneous_arrivals_test
