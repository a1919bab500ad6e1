// Reading inference-perf's per-request report: both info layouts, the stages from the
// stage files and config.yaml beside it, format detection, and malformed files failing
// at their line and field.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "workload/benchmark_test_util.h"
#include "workload/workload_test_util.h"

namespace inference_perf_format_test {

using namespace servesim;
using servesim::testing::line_with;
using servesim::testing::replaced;
using servesim::testing::repo_file;
using servesim::testing::ReportFolder;

namespace {

// Two requests in the nested layout; the variants below break one thing each.
const std::string kBase = R"([
  {
    "start_time": 1.0,
    "end_time": 1.5,
    "info": {
      "request_metrics": {"text": {"input_tokens": 10}},
      "response_metrics": {
        "output_tokens": 3,
        "output_token_times": [1.125, 1.25, 1.5]
      }
    },
    "error": null
  },
  {
    "start_time": 1.25,
    "end_time": 2.0,
    "info": {
      "request_metrics": {"text": {"input_tokens": 20}},
      "response_metrics": {
        "output_tokens": 2,
        "output_token_times": [1.5, 2.0]
      }
    },
    "error": null
  }
]
)";

struct Expected {
  int line;
  std::string field;
  std::string message_part;
};

void expect_failure(const std::string& path, const Expected& e) {
  try {
    read_benchmark(path, "inference-perf");
    FAIL("no error for " << e.field);
  } catch (const ConfigError& error) {
    INFO(error.what());
    CHECK(error.file() == path);
    CHECK(error.line() == e.line);
    CHECK(error.key() == e.field);
    CHECK(error.message().find(e.message_part) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("inference-perf: the nested report's requests and the two stages beside it", "[workload][benchmark]") {
  // tests/data/benchmarks/inference_perf_two_stages: five requests listed as they finished,
  // perf_counter seconds from 100.0; stage_0 (rate 2, 3 requests, sends over 1 s) and
  // stage_1 (rate 4, 2 requests, sends over 0.25 s); config.yaml: load type constant.
  const std::string path = repo_file("tests/data/benchmarks/inference_perf_two_stages/per_request_lifecycle_metrics.json");
  const BenchmarkRun run = read_benchmark(path);
  CHECK(run.format == "inference-perf");
  CHECK(run.path == path);
  CHECK(run.model == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK_FALSE(run.seed.has_value());

  REQUIRE(run.stages.size() == 2);
  CHECK(run.stages[0].name == "stage 0");
  REQUIRE(run.stages[0].rate_per_s.has_value());
  CHECK(*run.stages[0].rate_per_s == 2.0);
  CHECK(std::isinf(run.stages[0].burstiness));  // constant load: evenly spaced sends
  CHECK_FALSE(run.stages[0].max_concurrency.has_value());
  REQUIRE(run.stages[0].duration_s.has_value());
  CHECK(*run.stages[0].duration_s == 1.5);  // 100.0 .. 101.5
  CHECK(run.stages[1].name == "stage 1");
  CHECK(*run.stages[1].rate_per_s == 4.0);
  CHECK(*run.stages[1].duration_s == 1.0);  // 103.0 .. 104.0

  // In send order: 100.0, 100.5 (failed), 101.0 | 103.0, 103.25.
  REQUIRE(run.requests.size() == 5);
  const std::vector<Tick> starts = {0, 500'000'000, 1'000'000'000, 3'000'000'000, 3'250'000'000};
  const std::vector<std::int64_t> prompts = {10, 20, 30, 15, 40};
  // The first request's server counted 4 tokens where the client counted 5; the fourth's
  // 8 where the client counted 7: the server's count is read.
  const std::vector<std::int64_t> outputs = {4, 0, 2, 8, 3};
  const std::vector<Tick> ttfts = {250'000'000, -1, 125'000'000, -1, 250'000'000};
  const std::vector<Tick> e2els = {750'000'000, -1, 500'000'000, 500'000'000, 750'000'000};
  const std::vector<int> stages = {0, 0, 0, 1, 1};
  for (std::size_t i = 0; i < 5; ++i) {
    INFO("request " << i);
    const BenchmarkRequest& r = run.requests[i];
    REQUIRE(r.start_ns.has_value());
    CHECK(*r.start_ns == starts[i]);
    CHECK(r.prompt_tokens == prompts[i]);
    CHECK(r.output_tokens == outputs[i]);
    CHECK(r.ttft_ns == ttfts[i]);
    CHECK(r.e2el_ns == e2els[i]);
    CHECK(r.stage == stages[i]);
    CHECK(r.succeeded == (i != 1));
  }
  CHECK(run.requests[1].error == "HTTP Error 503: Service Unavailable");
  CHECK(run.requests[0].error.empty());
  CHECK(run.requests[0].itl_ns == std::vector<Tick>{125'000'000, 125'000'000, 250'000'000});
  CHECK(run.requests[2].itl_ns == std::vector<Tick>{375'000'000});
  CHECK(run.requests[3].itl_ns.empty());  // not streamed: no token times
  CHECK(run.requests[4].itl_ns == std::vector<Tick>{250'000'000, 250'000'000});
}

TEST_CASE("inference-perf: the flat info of early releases with no stage files is one stage", "[workload][benchmark]") {
  // tests/data/benchmarks/inference_perf_flat.json: three requests from 5.0 s, the second a
  // timeout; no stage files and no config.yaml in its folder.
  const BenchmarkRun run = read_benchmark(repo_file("tests/data/benchmarks/inference_perf_flat.json"));
  CHECK(run.format == "inference-perf");
  CHECK(run.model == "gpt2");
  REQUIRE(run.stages.size() == 1);
  CHECK(run.stages[0].name == "run");
  CHECK_FALSE(run.stages[0].rate_per_s.has_value());
  CHECK(run.stages[0].burstiness == 1.0);  // the load type is unknown without config.yaml
  CHECK(*run.stages[0].duration_s == 1.0);  // 5.0 .. 6.0
  REQUIRE(run.requests.size() == 3);
  CHECK(*run.requests[0].start_ns == 0);
  CHECK(*run.requests[1].start_ns == 250'000'000);
  CHECK(*run.requests[2].start_ns == 500'000'000);
  CHECK(run.requests[0].prompt_tokens == 12);
  CHECK(run.requests[0].output_tokens == 3);
  CHECK(run.requests[0].ttft_ns == 125'000'000);
  CHECK(run.requests[0].e2el_ns == 500'000'000);
  CHECK(run.requests[0].itl_ns == std::vector<Tick>{125'000'000, 250'000'000});
  CHECK_FALSE(run.requests[1].succeeded);
  CHECK(run.requests[1].error == "TimeoutError");
  CHECK(run.requests[1].prompt_tokens == 0);
  CHECK(run.requests[1].ttft_ns == -1);
  CHECK(run.requests[1].e2el_ns == -1);
  CHECK(run.requests[2].output_tokens == 1);
  CHECK(run.requests[2].ttft_ns == 125'000'000);
  CHECK(run.requests[2].e2el_ns == 250'000'000);
  CHECK(run.requests[2].itl_ns.empty());
}

TEST_CASE("inference-perf: detection picks it and only it", "[workload][benchmark]") {
  const JsonDocument nested(repo_file("tests/data/benchmarks/inference_perf_two_stages/per_request_lifecycle_metrics.json"));
  const JsonDocument flat(repo_file("tests/data/benchmarks/inference_perf_flat.json"));
  for (const JsonDocument* doc : {&nested, &flat}) {
    CHECK(inference_perf_format().recognises(doc->root()));
    CHECK_FALSE(vllm_bench_format().recognises(doc->root()));
    CHECK_FALSE(guidellm_format().recognises(doc->root()));
  }
  // A stage summary is not a per-request report.
  const JsonDocument stage(repo_file("tests/data/benchmarks/inference_perf_two_stages/stage_0_lifecycle_metrics.json"));
  CHECK_FALSE(inference_perf_format().recognises(stage.root()));
  CHECK_FALSE(inference_perf_format().recognises(nlohmann::json::array()));
}

TEST_CASE("inference-perf: a malformed entry fails at its line and field", "[workload][benchmark]") {
  const ReportFolder folder("malformed");
  struct Variant {
    std::string from, to, marker, field, message;
  };
  const std::vector<Variant> variants = {
      {"\"start_time\": 1.0,\n", "", "  {\n", "[0].start_time", "missing"},
      {"\"end_time\": 2.0", "\"end_time\": 1.0", "\"end_time\": 1.0", "[1].end_time", "before start_time"},
      {"[1.125, 1.25, 1.5]", "[0.5, 1.25, 1.5]", "[0.5, 1.25", "[0].info.response_metrics.output_token_times[0]",
       "before start_time"},
      {"[1.125, 1.25, 1.5]", "[1.125, 1.25, 1.2]", "[1.125, 1.25, 1.2]",
       "[0].info.response_metrics.output_token_times[2]", "before the token time before it"},
      {"[1.5, 2.0]", "[1.5, 2.5]", "[1.5, 2.5]", "[1].info.response_metrics.output_token_times[1]", "after end_time"},
      {"{\"input_tokens\": 20}", "{\"input_tokens\": -20}", "\"input_tokens\": -20",
       "[1].info.request_metrics.text.input_tokens", "must be >= 0"},
      // A request that succeeded with an empty prompt: nothing to prefill in a replay.
      {"{\"input_tokens\": 20}", "{\"input_tokens\": 0}", "\"input_tokens\": 0",
       "[1].info.request_metrics.text.input_tokens", "needs at least 1 prompt token"},
      {"\"output_tokens\": 2,", "\"output_tokens\": \"two\",", "\"output_tokens\": \"two\"",
       "[1].info.response_metrics.output_tokens", "must be a number"},
      {"\"output_tokens\": 3,", "\"output_tokens\": 2.5,", "\"output_tokens\": 2.5",
       "[0].info.response_metrics.output_tokens", "whole number"},
      {"\"error\": null\n  },\n  {", "\"error\": {\"error_msg\": \"boom\"}\n  },\n  {", "\"error\": {\"error_msg\"",
       "[0].error.error_type", "missing"},
      {"\"response_metrics\": {\n        \"output_tokens\": 2,", "\"response_metrics\": null, \"x\": {\n        \"output_tokens\": 2,",
       "\"response_metrics\": null", "[1].info.response_metrics", "missing"},
  };
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    INFO("variant " << i << ": " << v.field);
    const std::string text = replaced(kBase, v.from, v.to);
    const std::string path = folder.write("variant" + std::to_string(i) + ".json", text);
    expect_failure(path, {line_with(text, v.marker), v.field, v.message});
  }
}

TEST_CASE("inference-perf: stage files and config.yaml that do not fit the report fail naming them",
          "[workload][benchmark]") {
  const std::string stage0 = "{\n  \"load_summary\": {\n    \"count\": 1,\n    \"send_duration\": 0.0,\n    \"requested_rate\": 1.0\n  }\n}\n";
  SECTION("counts that do not add up to the report's requests") {
    const ReportFolder folder("count");
    const std::string path = folder.write("per_request_lifecycle_metrics.json", kBase);
    const std::string stage = folder.write("stage_0_lifecycle_metrics.json", stage0);
    try {
      read_benchmark(path);
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.file() == stage);
      CHECK(e.line() == 3);
      CHECK(e.key() == "load_summary.count");
      CHECK(e.message().find("count 1 requests") != std::string::npos);
    }
  }
  SECTION("a send span that is not the report's") {
    const ReportFolder folder("span");
    const std::string path = folder.write("per_request_lifecycle_metrics.json", kBase);
    // Two stages of one request each have a send span of 0; this one says 0.5 s.
    folder.write("stage_0_lifecycle_metrics.json", stage0);
    const std::string stage1 = folder.write("stage_1_lifecycle_metrics.json", replaced(stage0, "0.0", "0.5"));
    try {
      read_benchmark(path);
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.file() == stage1);
      CHECK(e.line() == 4);
      CHECK(e.key() == "load_summary.send_duration");
    }
  }
  SECTION("a stage file without load_summary") {
    const ReportFolder folder("noload");
    const std::string path = folder.write("per_request_lifecycle_metrics.json", kBase);
    const std::string stage = folder.write("stage_3_lifecycle_metrics.json", "{\n  \"successes\": {}\n}\n");
    try {
      read_benchmark(path);
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.file() == stage);
      CHECK(e.key() == "load_summary");
      CHECK(e.message() == "missing");
    }
  }
  SECTION("an unknown load type in config.yaml") {
    const ReportFolder folder("loadtype");
    const std::string path = folder.write("per_request_lifecycle_metrics.json", kBase);
    const std::string config = folder.write("config.yaml", "api:\n  streaming: true\nload:\n  type: bursty\n");
    try {
      read_benchmark(path);
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.file() == config);
      CHECK(e.line() == 4);
      CHECK(e.key() == "load.type");
    }
  }
  SECTION("fitting stage files split the requests; poisson keeps burstiness 1; concurrency drops the rate") {
    const ReportFolder folder("fit");
    const std::string path = folder.write("per_request_lifecycle_metrics.json", kBase);
    folder.write("stage_0_lifecycle_metrics.json", stage0);
    folder.write("stage_2_lifecycle_metrics.json",
                 "{\"load_summary\": {\"count\": 1, \"requested_rate\": 9.5, \"concurrency\": 4}}");
    folder.write("adapter_x_stage_0_lifecycle_metrics.json", "not even JSON");  // not a stage file
    folder.write("config.yaml", "load:\n  type: poisson\n");
    const BenchmarkRun run = read_benchmark(path);
    REQUIRE(run.stages.size() == 2);
    CHECK(run.stages[0].name == "stage 0");
    CHECK(*run.stages[0].rate_per_s == 1.0);
    CHECK(run.stages[0].burstiness == 1.0);
    CHECK(run.stages[1].name == "stage 2");
    CHECK_FALSE(run.stages[1].rate_per_s.has_value());
    CHECK(*run.stages[1].max_concurrency == 4);
    CHECK(run.requests[0].stage == 0);
    CHECK(run.requests[1].stage == 1);
    CHECK(*run.stages[0].duration_s == 0.5);
    CHECK(*run.stages[1].duration_s == 0.75);
  }
}

TEST_CASE("inference-perf: an empty report and a successful request without info are refused", "[workload][benchmark]") {
  const ReportFolder folder("empty");
  const std::string empty = folder.write("empty.json", "[\n]\n");
  CHECK_THROWS_AS(read_benchmark(empty, "inference-perf"), ConfigError);
  // Not recognised either: auto detection names no format.
  CHECK_THROWS_WITH(read_benchmark(empty), Catch::Contains("not the results of a benchmark tool"));
  const std::string text = replaced(kBase, "\"info\": {\n      \"request_metrics\": {\"text\": {\"input_tokens\": 10}},", "\"info\": null, \"x\": {\n      \"request_metrics\": {\"text\": {\"input_tokens\": 10}},");
  const std::string path = folder.write("noinfo.json", text);
  expect_failure(path, {line_with(text, "\"info\": null"), "[0].info", "missing"});
}

TEST_CASE("inference-perf: a successful request of the flat layout with an empty prompt is refused at its field",
          "[workload][benchmark]") {
  // Early releases' flat info; a failed request may keep 0 tokens (the flat report's own
  // test), one that succeeded was sent a prompt and is replayed with it.
  const ReportFolder folder("flat_empty_prompt");
  const std::string text =
      "[\n  {\n    \"start_time\": 5.0,\n    \"end_time\": 5.5,\n"
      "    \"info\": {\"input_tokens\": 0, \"output_tokens\": 1, \"output_token_times\": [5.25]},\n"
      "    \"error\": null\n  }\n]\n";
  const std::string path = folder.write("flat.json", text);
  expect_failure(path, {line_with(text, "\"input_tokens\": 0"), "[0].info.input_tokens", "needs at least 1 prompt token"});
}

}  // namespace inference_perf_format_test
