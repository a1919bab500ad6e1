// Reading `vllm bench serve --save-result --save-detailed` files: every field, the format
// detection, and every kind of malformed file failing at its line and field.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "workload/workload_test_util.h"

namespace vllm_bench_format_test {

using namespace servesim;
using servesim::testing::repo_file;
using servesim::testing::TempFile;

TEST_CASE("vllm-bench: the detailed file's settings and every request read as written", "[workload][benchmark]") {
  // tests/data/benchmarks/vllm_bench_detailed.json: an older-version file (no start_times,
  // no latencies), rate 4, six requests of which the third failed.
  const BenchmarkRun run = read_benchmark(repo_file("tests/data/benchmarks/vllm_bench_detailed.json"), "vllm-bench");
  CHECK(run.format == "vllm-bench");
  CHECK(run.model == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK_FALSE(run.seed.has_value());
  REQUIRE(run.stages.size() == 1);
  const BenchmarkStage& stage = run.stages[0];
  REQUIRE(stage.rate_per_s.has_value());
  CHECK(*stage.rate_per_s == 4.0);
  CHECK(stage.burstiness == 1.0);
  CHECK_FALSE(stage.max_concurrency.has_value());
  REQUIRE(stage.duration_s.has_value());
  CHECK(*stage.duration_s == 3.25);

  REQUIRE(run.requests.size() == 6);
  const std::vector<std::int64_t> prompts = {128, 256, 64, 512, 100, 32};
  const std::vector<std::int64_t> outputs = {4, 3, 0, 5, 1, 2};
  // ttft from ttfts; e2el = ttft + sum(itls), worked out by hand from the file:
  // 50 + 10 + 12.5 + 15 = 87.5 ms; 62.5 + 20 + 20 = 102.5; 125 + 10 + 10 + 10 + 17.5 = 172.5;
  // 40 (one token, no gaps); 30 + 5 = 35.
  const std::vector<Tick> ttfts = {50'000'000, 62'500'000, -1, 125'000'000, 40'000'000, 30'000'000};
  const std::vector<Tick> e2els = {87'500'000, 102'500'000, -1, 172'500'000, 40'000'000, 35'000'000};
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("request " << i);
    const BenchmarkRequest& r = run.requests[i];
    CHECK(r.prompt_tokens == prompts[i]);
    CHECK(r.output_tokens == outputs[i]);
    CHECK(r.ttft_ns == ttfts[i]);
    CHECK(r.e2el_ns == e2els[i]);
    CHECK_FALSE(r.start_ns.has_value());
    CHECK(r.stage == 0);
    CHECK(r.succeeded == (i != 2));
  }
  CHECK(run.requests[2].error.find("ServerDisconnectedError") != std::string::npos);
  CHECK(run.requests[0].error.empty());
  CHECK(run.requests[0].itl_ns == std::vector<Tick>{10'000'000, 12'500'000, 15'000'000});
  CHECK(run.requests[3].itl_ns == std::vector<Tick>{10'000'000, 10'000'000, 10'000'000, 17'500'000});
  CHECK(run.requests[4].itl_ns.empty());
}

TEST_CASE("vllm-bench: request_rate inf with max_concurrency and send times and latencies and a metadata seed",
          "[workload][benchmark]") {
  // A newer-version file: start_times (perf_counter seconds from 5000.25) and latencies.
  const BenchmarkRun run = read_benchmark(repo_file("tests/data/benchmarks/vllm_bench_inf_concurrency.json"));
  CHECK(run.format == "vllm-bench");  // detected
  CHECK(run.model == "Qwen/Qwen3-8B");
  REQUIRE(run.seed.has_value());
  CHECK(*run.seed == 42);  // --metadata seed=42 writes the string "42"
  REQUIRE(run.stages.size() == 1);
  CHECK_FALSE(run.stages[0].rate_per_s.has_value());
  REQUIRE(run.stages[0].max_concurrency.has_value());
  CHECK(*run.stages[0].max_concurrency == 2);
  REQUIRE(run.requests.size() == 5);
  const std::vector<Tick> starts = {0, 0, 250'000'000, 312'500'000, 406'250'000};
  const std::vector<Tick> e2els = {250'000'000, 312'500'000, 187'500'000, 93'750'000, 78'125'000};
  const std::vector<std::int64_t> outputs = {3, 5, 2, 1, 3};
  for (std::size_t i = 0; i < 5; ++i) {
    INFO("request " << i);
    REQUIRE(run.requests[i].start_ns.has_value());
    CHECK(*run.requests[i].start_ns == starts[i]);
    CHECK(run.requests[i].e2el_ns == e2els[i]);
    CHECK(run.requests[i].output_tokens == outputs[i]);
    CHECK(run.requests[i].prompt_tokens == 1024);
    CHECK(run.requests[i].succeeded);
  }
  CHECK(run.requests[0].ttft_ns == 125'000'000);
}

namespace {

// One key per line, so that each variant's line is known. Lines:
//  1 {            5 burstiness        9 failed          13 itls
//  2 backend      6 max_concurrency  10 input_lens      14 errors
//  3 model_id     7 duration         11 output_lens     15 }
//  4 request_rate 8 completed        12 ttfts
const std::vector<std::string> kBase = {
    "{",
    "\"backend\": \"vllm\",",
    "\"model_id\": \"m\",",
    "\"request_rate\": 2.0,",
    "\"burstiness\": 0.5,",
    "\"max_concurrency\": null,",
    "\"duration\": 1.5,",
    "\"completed\": 2,",
    "\"failed\": 1,",
    "\"input_lens\": [10, 20, 30],",
    "\"output_lens\": [2, 0, 3],",
    "\"ttfts\": [0.1, 0.0, 0.2],",
    "\"itls\": [[0.05], [], [0.01, 0.02]],",
    "\"errors\": [\"\", \"timeout\", \"\"]",
    "}",
};

// kBase with line `line` (1-based) replaced by `text`.
std::string variant(int line, const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < kBase.size(); ++i) out += (static_cast<int>(i) + 1 == line ? text : kBase[i]) + "\n";
  return out;
}

struct Failure {
  int line;
  std::string field;
  std::string message;
};

Failure read_failure(const std::string& text) {
  const TempFile file("vllm_bad.json", text);
  try {
    read_benchmark(file.path(), "vllm-bench");
  } catch (const ConfigError& e) {
    CHECK(e.file() == file.path());
    return {e.line(), e.key(), e.message()};
  }
  return {-1, "(no error)", ""};
}

}  // namespace

TEST_CASE("vllm-bench: the base of the malformed variants reads", "[workload][benchmark]") {
  const TempFile file("vllm_base.json", variant(0, ""));
  const BenchmarkRun run = read_benchmark(file.path());
  CHECK(run.format == "vllm-bench");
  REQUIRE(run.requests.size() == 3);
  CHECK(run.stages[0].burstiness == 0.5);
  CHECK(*run.stages[0].rate_per_s == 2.0);
  CHECK_FALSE(run.requests[1].succeeded);
  CHECK(run.requests[1].error == "timeout");
  CHECK(run.requests[2].e2el_ns == 230'000'000);
}

TEST_CASE("vllm-bench: each malformed file fails at its line and field", "[workload][benchmark]") {
  struct Case {
    int line;
    std::string text;
    int expected_line;
    std::string field;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      // A file saved without --save-detailed: absent member, so the line of the object.
      {12, "", 1, "ttfts", "--save-detailed"},
      {12, "\"ttfts\": [0.1, 0.0],", 12, "ttfts", "has 2 entries but input_lens has 3"},
      {12, "\"ttfts\": [0.1, 0.0, -0.2],", 12, "ttfts[2]", "must be >= 0"},
      {10, "\"input_lens\": [10, \"20\", 30],", 10, "input_lens[1]", "must be a number"},
      {11, "\"output_lens\": [2, 0, 2.5],", 11, "output_lens[2]", "whole number"},
      {10, "\"input_lens\": [0, 20, 30],", 10, "input_lens[0]", "at least 1 prompt token"},
      {4, "\"request_rate\": \"fast\",", 4, "request_rate", "\"inf\""},
      {4, "\"request_rate\": 0,", 4, "request_rate", "must be > 0"},
      {5, "\"burstiness\": 0,", 5, "burstiness", "must be > 0"},
      {6, "\"max_concurrency\": 0,", 6, "max_concurrency", "must be >= 1"},
      {7, "", 1, "duration", "missing"},
      {8, "\"completed\": 3,", 8, "completed", "says 3 requests succeeded, but 2"},
      {9, "\"failed\": 2,", 9, "failed", "says 2 requests failed"},
      {13, "\"itls\": [[0.05], [], [0.01, -0.02]],", 13, "itls[2][1]", "must be >= 0"},
      {13, "\"itls\": [[0.05], [], 0.03],", 13, "itls[2]", "must be a list"},
      {13, "\"itls\": [[0.05], [], [0.01, \"0.02\"]],", 13, "itls[2][1]", "must be a number"},
      {13, "\"itls\": [[0.05, 1e10], [], []],", 13, "itls[0][1]", "more than 9e9 seconds"},
      {14, "\"errors\": [\"\", null, \"\"]", 14, "errors[1]", "must be a string"},
      {6, "\"ramp_up_strategy\": \"linear\",", 6, "ramp_up_strategy", "no start_times"},
      {9, "\"latencies\": [0.05, 0.0, 0.3],", 9, "latencies[0]", "below ttfts[0]"},
      {9, "\"start_times\": [1.0, 2.0],", 9, "start_times", "has 2 entries"},
  };
  for (const Case& c : cases) {
    INFO("line " << c.line << " -> " << c.text);
    const Failure f = read_failure(variant(c.line, c.text));
    CHECK(f.field == c.field);
    CHECK(f.line == c.expected_line);
    CHECK(f.message.find(c.message_part) != std::string::npos);
    INFO(f.message);
  }
}

TEST_CASE("vllm-bench: a request failed without an error text is told apart by `completed`", "[workload][benchmark]") {
  // The tool marks a request failed without text when the server's HTTP reason is empty; it
  // never received a token (ttft 0, output 0). `completed` says 2 of 3 succeeded.
  const TempFile file("vllm_silent.json", variant(14, "\"errors\": [\"\", \"\", \"\"]"));
  const BenchmarkRun run = read_benchmark(file.path(), "vllm-bench");
  CHECK(run.requests[0].succeeded);
  CHECK_FALSE(run.requests[1].succeeded);
  CHECK(run.requests[1].error.find("without an error text") != std::string::npos);
  CHECK(run.requests[2].succeeded);
}

TEST_CASE("vllm-bench: detection by the top-level keys", "[workload][benchmark]") {
  const BenchmarkFormat format = vllm_bench_format();
  CHECK(format.recognises(nlohmann::json::parse(R"({"backend": "vllm", "request_rate": "inf", "completed": 3})")));
  CHECK_FALSE(format.recognises(nlohmann::json::parse(R"({"request_rate": 1, "completed": 3})")));
  CHECK_FALSE(format.recognises(nlohmann::json::parse(R"([1, 2])")));
  const TempFile other("not_vllm.json", "{\"requests\": 3}\n");
  try {
    read_benchmark(other.path());
    FAIL("read an unknown file");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "format");
  }
}

}  // namespace vllm_bench_format_test
