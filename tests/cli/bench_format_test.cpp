// `servesim run --bench-format vllm` / `outputs: {bench_format: vllm}`: the run written as
// vllm bench serve writes its results, read back by servesim's own reader and checked
// against requests.csv, with the summary figures worked out here from requests.csv.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "cli/requests_csv_rows.h"
#include "sim/workload/benchmark/benchmark_reader.h"

namespace bench_format_test {

using namespace servesim::testing;

namespace {

// A queue limit of 3 on a server of 4 sequences at 50 requests/s rejects some requests;
// outputs of 1 token (no TPOT) to 60; the roofline makes each request's TPOT its own.
const char* kWritten = R"(name: written
seed: 11
stop: {requests: 40}
workload:
  - class: chat
    arrival: {process: gamma, rate: 50, cv: 2}
    input: {uniform: [100, 900]}
    output: {uniform: [1, 60]}
cluster:
  pools:
    - name: main
      model: llama-3-8b
      hardware: h100-sxm
      engine: {max_num_seqs: 4}
      cost_model: roofline
  admission: {chat: {queue_limit: 3}}
)";

// The linear percentile of sorted values, written out from its definition: the value at
// fractional position p/100 x (n - 1).
double percentile(const std::vector<double>& sorted, double p) {
  const double position = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const std::size_t i = static_cast<std::size_t>(position);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] * (1 - (position - i)) + sorted[i + 1] * (position - i);
}

void check_metric(const nlohmann::json& doc, const std::string& name, std::vector<double> values_ms) {
  INFO(name);
  REQUIRE_FALSE(values_ms.empty());
  std::sort(values_ms.begin(), values_ms.end());
  double sum = 0;
  for (double v : values_ms) sum += v;
  const double mean = sum / values_ms.size();
  double squares = 0;
  for (double v : values_ms) squares += (v - mean) * (v - mean);
  const double std_ms = std::sqrt(squares / values_ms.size());
  const auto close = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); };
  CHECK(close(doc.at("mean_" + name + "_ms").get<double>(), mean));
  CHECK(close(doc.at("std_" + name + "_ms").get<double>(), std_ms));
  CHECK(close(doc.at("median_" + name + "_ms").get<double>(), percentile(values_ms, 50)));
  CHECK(close(doc.at("p99_" + name + "_ms").get<double>(), percentile(values_ms, 99)));
  CHECK(close(doc.at("p90_" + name + "_ms").get<double>(), percentile(values_ms, 90)));
}

}  // namespace

TEST_CASE("bench format vllm: the written file reads back as the run's requests with vllm's summary figures",
          "[cli][benchmark]") {
  TempDir dir("bench-vllm");
  const auto yaml = dir.write("written.yaml", kWritten);
  const std::string out = (dir.path / "out").string();
  const CliResult r = run_cli("run " + yaml.string() + " --bench-format vllm --out " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("vllm_bench.json") != std::string::npos);

  std::vector<CsvRequest> rows = parse_requests_csv(read_file(dir.path / "out" / "requests.csv"));
  std::sort(rows.begin(), rows.end(), [](const CsvRequest& a, const CsvRequest& b) { return a.id < b.id; });
  REQUIRE(rows.size() == 40);
  const std::string written = (dir.path / "out" / "vllm_bench.json").string();
  const servesim::BenchmarkRun run = servesim::read_benchmark(written);  // detected as vllm-bench
  CHECK(run.format == "vllm-bench");
  REQUIRE(run.requests.size() == rows.size());

  std::int64_t completed = 0, rejected = 0, input_tokens = 0, output_tokens = 0, gaps = 0;
  std::vector<double> ttft_ms, e2el_ms, tpot_ms;
  double decode_ms = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("request id " << rows[i].id);
    const CsvRequest& row = rows[i];
    const servesim::BenchmarkRequest& req = run.requests[i];
    CHECK(req.prompt_tokens == row.prompt_tokens);
    REQUIRE(req.start_ns.has_value());
    CHECK(std::llabs(*req.start_ns - (row.arrival_ns - rows[0].arrival_ns)) <= 1);
    if (row.outcome != "completed") {
      ++rejected;
      CHECK(row.outcome == "rejected");
      CHECK_FALSE(req.succeeded);
      CHECK(req.error.find("rejected") != std::string::npos);
      continue;
    }
    ++completed;
    CHECK(req.succeeded);
    CHECK(req.output_tokens == row.output_tokens_done);
    CHECK(std::llabs(req.ttft_ns - row.ttft_ns) <= 1);
    CHECK(std::llabs(req.e2el_ns - row.e2el_ns) <= 1);
    CHECK(static_cast<std::int64_t>(req.itl_ns.size()) == std::max<std::int64_t>(0, row.output_tokens_done - 1));
    input_tokens += row.prompt_tokens;
    output_tokens += row.output_tokens_done;
    ttft_ms.push_back(row.ttft_ns * 1e-6);
    e2el_ms.push_back(row.e2el_ns * 1e-6);
    if (row.output_tokens_done > 1) {
      tpot_ms.push_back((row.e2el_ns - row.ttft_ns) * 1e-6 / (row.output_tokens_done - 1));
      decode_ms += (row.e2el_ns - row.ttft_ns) * 1e-6;
      gaps += row.output_tokens_done - 1;
    }
  }
  REQUIRE(completed > 5);
  REQUIRE(rejected > 0);  // the queue limit bit: failed requests are in the file

  const nlohmann::json doc = nlohmann::json::parse(read_file(written));
  CHECK(doc.at("completed") == completed);
  CHECK(doc.at("failed") == rejected);
  CHECK(doc.at("num_prompts") == 40);
  CHECK(doc.at("total_input_tokens") == input_tokens);
  CHECK(doc.at("total_output_tokens") == output_tokens);
  CHECK(doc.at("request_rate") == 50.0);
  CHECK(doc.at("burstiness") == 0.25);  // gamma shape 1 / cv^2
  CHECK(doc.at("max_concurrency").is_null());
  CHECK(doc.at("model_id") == "llama-3-8b");
  const double duration_s = doc.at("duration").get<double>();
  CHECK(std::fabs(doc.at("request_throughput").get<double>() - completed / duration_s) < 1e-9);
  CHECK(std::fabs(doc.at("output_throughput").get<double>() - output_tokens / duration_s) < 1e-9);
  check_metric(doc, "ttft", ttft_ms);
  check_metric(doc, "e2el", e2el_ms);
  check_metric(doc, "tpot", tpot_ms);
  // The gaps are each request's decode time spread evenly, so their mean is exact.
  CHECK(std::fabs(doc.at("mean_itl_ms").get<double>() - decode_ms / gaps) < 1e-6);
  // Every request, in flight together at most as many as the server holds plus its queue.
  CHECK(doc.at("max_concurrent_requests").get<int>() >= 1);
  CHECK(doc.at("max_concurrent_requests").get<int>() <= 4 + 3);

  // servesim's own file replays as a benchmark: the completed requests at their arrivals.
  const auto replay = dir.write(
      "replay.yaml", "name: replay\nworkload:\n  - class: chat\n    trace: {format: benchmark, path: " + written +
                         "}\ncluster:\n  pools:\n    - model: llama-3-8b\n      hardware: h100-sxm\n"
                         "      cost_model: {constant: {step: 10ms}}\n");
  const CliResult again = run_cli("run " + replay.string() + " --quiet --out " + (dir.path / "again").string());
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  const std::vector<CsvRequest> replayed = parse_requests_csv(read_file(dir.path / "again" / "requests.csv"));
  REQUIRE(static_cast<std::int64_t>(replayed.size()) == completed);
  std::vector<std::int64_t> expected, actual;
  for (const CsvRequest& row : rows)
    if (row.outcome == "completed") expected.push_back(row.arrival_ns - rows[0].arrival_ns);
  for (const CsvRequest& row : replayed) actual.push_back(row.arrival_ns);
  std::sort(actual.begin(), actual.end());
  // The origin is the first request of the file, which may be a rejected one.
  const std::int64_t shift = expected.front() - actual.front();
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(std::llabs(actual[i] + shift - expected[i]) <= 1);
}

TEST_CASE("bench format: the scenario key takes one name or a list and bad names exit 2", "[cli][benchmark][scenario]") {
  TempDir dir("bench-key");
  const auto run_with = [&](const std::string& outputs, const std::string& flags = "") {
    const auto yaml = dir.write("key.yaml", std::string(kWritten) + outputs);
    return run_cli("run " + yaml.string() + " --quiet " + flags + " --out " + (dir.path / "out").string());
  };
  CliResult r = run_with("outputs: {bench_format: vllm}\n");
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(dir.path / "out" / "vllm_bench.json"));
  // A later run into the same folder without the format removes the stale file.
  r = run_with("");
  CHECK(r.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path / "out" / "vllm_bench.json"));
  r = run_with("outputs: {bench_format: [vllm]}\n");
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(dir.path / "out" / "vllm_bench.json"));

  r = run_with("outputs: {bench_format: vlm}\n");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("key.yaml:17:") != std::string::npos);
  CHECK(r.output.find("outputs.bench_format: unknown benchmark format 'vlm'; did you mean 'vllm'?") != std::string::npos);
  r = run_with("outputs: {bench_format: [vllm, vllm]}\n");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("'vllm' is listed twice") != std::string::npos);
  r = run_with("", "--bench-format nope");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--bench-format: unknown benchmark format 'nope'") != std::string::npos);
  INFO(r.output);
}

}  // namespace bench_format_test
