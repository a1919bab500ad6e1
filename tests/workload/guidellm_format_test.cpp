// Reading GuideLLM reports: the 0.3-and-later schema over two benchmarks, the 0.2 schema,
// format detection, and malformed reports failing at their line and field.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "workload/benchmark_test_util.h"
#include "workload/workload_test_util.h"

namespace guidellm_format_test {

using namespace servesim;
using servesim::testing::line_with;
using servesim::testing::replaced;
using servesim::testing::repo_file;
using servesim::testing::ReportFolder;

TEST_CASE("guidellm: two benchmarks of the newer schema with every status", "[workload][benchmark]") {
  // tests/data/benchmarks/guidellm_two_benchmarks.json: a synchronous benchmark (two
  // successful, one errored) and a constant@4 one (one successful, two incomplete, one of
  // which never started), Unix timestamps from 1700000000.0.
  const BenchmarkRun run = read_benchmark(repo_file("tests/data/benchmarks/guidellm_two_benchmarks.json"));
  CHECK(run.format == "guidellm");
  CHECK(run.model == "Qwen/Qwen3-8B");
  REQUIRE(run.seed.has_value());
  CHECK(*run.seed == 42);

  REQUIRE(run.stages.size() == 2);
  CHECK(run.stages[0].name == "synchronous");
  CHECK_FALSE(run.stages[0].rate_per_s.has_value());
  CHECK(*run.stages[0].max_concurrency == 1);
  CHECK(*run.stages[0].duration_s == 2.0);
  CHECK(run.stages[1].name == "constant@4.00");
  CHECK(*run.stages[1].rate_per_s == 4.0);
  CHECK(std::isinf(run.stages[1].burstiness));
  CHECK(*run.stages[1].max_concurrency == 16);
  CHECK(*run.stages[1].duration_s == 1.5);

  // Send order within each benchmark: s1 (0), e1 (0.5 s), s2 (1 s) | s3 (3 s), i1 (3.25 s),
  // i2 (never started: last, no start).
  REQUIRE(run.requests.size() == 6);
  const std::vector<std::optional<Tick>> starts = {0, 500'000'000, 1'000'000'000, 3'000'000'000, 3'250'000'000,
                                                   std::nullopt};
  const std::vector<std::int64_t> prompts = {100, 90, 80, 50, 60, 70};
  const std::vector<std::int64_t> outputs = {16, 0, 8, 4, 3, 0};
  const std::vector<Tick> ttfts = {125'000'000, -1, 250'000'000, 62'500'000, -1, -1};
  const std::vector<Tick> e2els = {500'000'000, -1, 750'000'000, 500'000'000, -1, -1};
  const std::vector<bool> ok = {true, false, true, true, false, false};
  const std::vector<int> stages = {0, 0, 0, 1, 1, 1};
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("request " << i);
    const BenchmarkRequest& r = run.requests[i];
    CHECK(r.start_ns == starts[i]);
    CHECK(r.prompt_tokens == prompts[i]);
    CHECK(r.output_tokens == outputs[i]);
    CHECK(r.ttft_ns == ttfts[i]);
    CHECK(r.e2el_ns == e2els[i]);
    CHECK(r.succeeded == ok[i]);
    CHECK(r.stage == stages[i]);
    CHECK(r.itl_ns.empty());  // GuideLLM keeps only the first and last token times
  }
  CHECK(run.requests[1].error == "HTTP 500: Internal Server Error");
  CHECK(run.requests[4].error == "incomplete: the benchmark ended before it finished");
  CHECK(run.requests[5].error == "incomplete: the benchmark ended before it finished: cancelled before it was sent");
}

TEST_CASE("guidellm: the 0.2 schema", "[workload][benchmark]") {
  // tests/data/benchmarks/guidellm_v02.json: concurrent@2, two successful and one errored.
  const BenchmarkRun run = read_benchmark(repo_file("tests/data/benchmarks/guidellm_v02.json"));
  CHECK(run.format == "guidellm");
  CHECK(run.model == "neuralmagic/Llama-3.2-1B");
  CHECK_FALSE(run.seed.has_value());
  REQUIRE(run.stages.size() == 1);
  CHECK(run.stages[0].name == "concurrent@2");
  CHECK(*run.stages[0].max_concurrency == 2);
  CHECK_FALSE(run.stages[0].rate_per_s.has_value());
  CHECK(*run.stages[0].duration_s == 1.0);
  REQUIRE(run.requests.size() == 3);
  // b (0), a (0.25 s), c (0.5 s, errored).
  CHECK(*run.requests[0].start_ns == 0);
  CHECK(run.requests[0].prompt_tokens == 32);
  CHECK(run.requests[0].output_tokens == 5);
  CHECK(run.requests[0].ttft_ns == 62'500'000);
  CHECK(run.requests[0].e2el_ns == 500'000'000);
  CHECK(*run.requests[1].start_ns == 250'000'000);
  CHECK(run.requests[1].prompt_tokens == 64);
  CHECK(run.requests[1].output_tokens == 10);
  CHECK(run.requests[1].ttft_ns == 125'000'000);
  CHECK(run.requests[1].e2el_ns == 750'000'000);
  CHECK(*run.requests[2].start_ns == 500'000'000);
  CHECK_FALSE(run.requests[2].succeeded);
  CHECK(run.requests[2].error == "Connection reset by peer");
  CHECK(run.requests[2].prompt_tokens == 16);
  CHECK(run.requests[2].ttft_ns == -1);
}

TEST_CASE("guidellm: detection picks it and only it", "[workload][benchmark]") {
  for (const char* file : {"guidellm_two_benchmarks.json", "guidellm_v02.json"}) {
    INFO(file);
    const JsonDocument doc(repo_file(std::string("tests/data/benchmarks/") + file));
    CHECK(guidellm_format().recognises(doc.root()));
    CHECK_FALSE(vllm_bench_format().recognises(doc.root()));
    CHECK_FALSE(inference_perf_format().recognises(doc.root()));
  }
}

namespace {

// One benchmark, one successful and one errored request; each variant breaks one thing.
const std::string kBase = R"({
  "args": {"model": "m"},
  "benchmarks": [
    {
      "config": {
        "strategy": {"type_": "poisson", "rate": 2.0}
      },
      "metrics": {"request_totals": {"successful": 1, "incomplete": 0, "errored": 1}},
      "requests": {
        "successful": [
          {
            "info": {
              "timings": {
                "request_start": 10.0,
                "first_token_iteration": 10.25,
                "last_token_iteration": 10.5,
                "request_end": 10.5
              }
            },
            "prompt_tokens": 5,
            "output_tokens": 2
          }
        ],
        "incomplete": [],
        "errored": [
          {
            "info": {"timings": {"request_start": 10.75, "request_end": 11.0}, "error": "boom"},
            "prompt_tokens": 6,
            "output_tokens": null
          }
        ]
      },
      "duration": 1.0
    }
  ]
}
)";

}  // namespace

TEST_CASE("guidellm: the base of the malformed variants reads", "[workload][benchmark]") {
  const ReportFolder folder("guidellm_base");
  const BenchmarkRun run = read_benchmark(folder.write("base.json", kBase));
  REQUIRE(run.requests.size() == 2);
  CHECK(run.stages[0].name == "poisson@2.00");
  CHECK(run.stages[0].burstiness == 1.0);
  CHECK(run.requests[0].ttft_ns == 250'000'000);
  CHECK(run.requests[1].error == "boom");
  CHECK(*run.requests[1].start_ns == 750'000'000);
}

TEST_CASE("guidellm: a malformed report fails at its line and field", "[workload][benchmark]") {
  const ReportFolder folder("guidellm_malformed");
  struct Variant {
    std::string from, to, marker, field, message;
  };
  const std::string request = "benchmarks[0].requests.successful[0]";
  const std::vector<Variant> variants = {
      {"{\"type_\": \"poisson\", \"rate\": 2.0}", "{\"rate\": 2.0}", "\"strategy\"",
       "benchmarks[0].config.strategy.type_", "missing"},
      {"\"type_\": \"poisson\"", "\"type_\": \"sweep\"", "\"sweep\"", "benchmarks[0].config.strategy.type_",
       "unknown strategy 'sweep'"},
      {"\"rate\": 2.0", "\"rate\": 0", "\"rate\": 0", "benchmarks[0].config.strategy.rate", "must be > 0"},
      {"\"request_end\": 10.5", "\"request_end\": 9.5", "\"request_end\": 9.5", request + ".info.timings.request_end",
       "before the request's start"},
      {"\"first_token_iteration\": 10.25", "\"first_token_iteration\": 10.75", "\"first_token_iteration\"",
       request + ".info.timings.first_token_iteration", "after the request's end"},
      {"\"prompt_tokens\": 5", "\"prompt_tokens\": -5", "\"prompt_tokens\": -5", request + ".prompt_tokens",
       "must be >= 0"},
      // A request that succeeded with an empty prompt: nothing to prefill in a replay.
      {"\"prompt_tokens\": 5", "\"prompt_tokens\": 0", "\"prompt_tokens\": 0", request + ".prompt_tokens",
       "needs at least 1 of these tokens"},
      {"\"output_tokens\": 2", "\"output_tokens\": null", "\"output_tokens\": null", request + ".output_tokens",
       "missing"},
      {"\"request_start\": 10.0,", "\"request_start\": \"ten\",", "\"ten\"", request + ".info.timings.request_start",
       "must be a number"},
      {"\"successful\": 1, \"incomplete\"", "\"successful\": 5, \"incomplete\"", "\"successful\": [",
       "benchmarks[0].requests.successful", "lists 1 of the 5 successful requests"},
      {"\"errored\": [", "\"errored\": {\"x\": [", "\"errored\": {", "benchmarks[0].requests.errored",
       "must be a list"},
  };
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    INFO("variant " << i << ": " << v.field);
    std::string text = replaced(kBase, v.from, v.to);
    if (v.to == "\"errored\": {\"x\": [") text = replaced(text, "]\n      },\n      \"duration\"", "]}\n      },\n      \"duration\"");
    const std::string path = folder.write("variant" + std::to_string(i) + ".json", text);
    try {
      read_benchmark(path, "guidellm");
      FAIL("no error");
    } catch (const ConfigError& e) {
      INFO(e.what());
      CHECK(e.file() == path);
      CHECK(e.line() == line_with(text, v.marker));
      CHECK(e.key() == v.field);
      CHECK(e.message().find(v.message) != std::string::npos);
    }
  }
}

TEST_CASE("guidellm: a report without benchmarks or of neither schema is refused", "[workload][benchmark]") {
  const ReportFolder folder("guidellm_empty");
  const std::string none = folder.write("none.json", "{\n  \"benchmarks\": []\n}\n");
  CHECK_THROWS_WITH(read_benchmark(none), Catch::Contains("benchmarks: holds no benchmarks"));
  const std::string neither = folder.write("neither.json", "{\n  \"benchmarks\": [\n    {\"requests\": {}}\n  ]\n}\n");
  try {
    read_benchmark(neither);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.line() == 3);
    CHECK(e.key() == "benchmarks[0]");
    CHECK(e.message().find("neither config") != std::string::npos);
  }
}

}  // namespace guidellm_format_test
