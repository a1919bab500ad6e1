// The inference-perf and GuideLLM writers, read back with read_benchmark: every request's
// send time, tokens and latencies and the stage come back as the simulated run had them,
// and the files carry the tool's summary figures for them.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/request_record.h"
#include "sim/report/benchmark/benchmark_writer.h"
#include "sim/workload/benchmark/benchmark_reader.h"
#include "workload/benchmark_test_util.h"

namespace inference_perf_guidellm_roundtrip_test {

using namespace servesim;
using servesim::testing::ReportFolder;

namespace {

RequestRecord completed(std::uint64_t id, Tick arrival, Tick first_token, Tick finish, std::int64_t prompt,
                        std::int64_t output) {
  RequestRecord r;
  r.id = id;
  r.outcome = Outcome::completed;
  r.arrival_ns = arrival;
  r.first_scheduled_ns = arrival;
  r.first_token_ns = first_token;
  r.finish_ns = finish;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.output_tokens_done = output;
  return r;
}

// Five requests, handed over in the order they left the system: two completed early, one
// rejected, one completed late with odd nanoseconds, one still in flight at the end.
std::vector<RequestRecord> records() {
  RequestRecord r1 = completed(1, 0, 100'000'000, 400'000'000, 100, 4);
  r1.cached_prompt_tokens = 32;
  const RequestRecord r2 = completed(2, 250'000'000, 300'000'000, 300'000'000, 10, 1);
  RequestRecord r3;
  r3.id = 3;
  r3.outcome = Outcome::rejected;
  r3.reject_reason = "queue_full";
  r3.arrival_ns = 500'000'000;
  r3.finish_ns = 500'000'000;
  r3.prompt_tokens = 50;
  r3.output_tokens = 9;
  RequestRecord r4;
  r4.id = 4;
  r4.outcome = Outcome::unfinished;
  r4.arrival_ns = 900'000'000;
  r4.first_token_ns = 950'000'000;
  r4.prompt_tokens = 20;
  r4.output_tokens = 6;
  r4.output_tokens_done = 2;
  const RequestRecord r5 = completed(5, 1'000'000'001, 1'123'456'789, 2'000'000'003, 7, 5);
  return {r2, r1, r3, r5, r4};
}

BenchmarkRunInfo run_info() {
  BenchmarkRunInfo info;
  info.scenario_name = "roundtrip";
  info.model = "servesim/test-model";
  info.seed = 7;
  info.duration_ns = 2'500'000'000;
  info.request_rate_per_s = 4.0;
  info.burstiness = 1.0;
  return info;
}

std::string write_with(const std::string& format, const ReportFolder& folder, const BenchmarkRunInfo& info) {
  const BenchmarkWriterFormat* writer_format = find_benchmark_writer(format);
  REQUIRE(writer_format != nullptr);
  const std::string path = folder.file(writer_format->file_name);
  const auto writer = writer_format->make(path);
  for (const RequestRecord& r : records()) writer->add(r);
  writer->finish(info);
  return path;
}

// What both formats give back for the five requests, in send order.
void check_requests(const BenchmarkRun& run) {
  REQUIRE(run.requests.size() == 5);
  const std::vector<Tick> starts = {0, 250'000'000, 500'000'000, 900'000'000, 1'000'000'001};
  const std::vector<std::int64_t> prompts = {100, 10, 50, 20, 7};
  const std::vector<bool> ok = {true, true, false, false, true};
  // r5: first token 123,456,788 ns after its arrival, finish 1,000,000,002 ns after.
  const std::vector<Tick> ttfts = {100'000'000, 50'000'000, -1, -1, 123'456'788};
  const std::vector<Tick> e2els = {400'000'000, 50'000'000, -1, -1, 1'000'000'002};
  for (std::size_t i = 0; i < 5; ++i) {
    INFO("request " << i);
    const BenchmarkRequest& r = run.requests[i];
    REQUIRE(r.start_ns.has_value());
    CHECK(*r.start_ns == starts[i]);
    CHECK(r.prompt_tokens == prompts[i]);
    CHECK(r.succeeded == ok[i]);
    CHECK(r.ttft_ns == ttfts[i]);
    CHECK(r.e2el_ns == e2els[i]);
    CHECK(r.stage == 0);
  }
  CHECK(run.requests[0].output_tokens == 4);
  CHECK(run.requests[1].output_tokens == 1);
  CHECK(run.requests[2].output_tokens == 0);
  CHECK(run.requests[4].output_tokens == 5);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("inference-perf writer: read back - every request and the stage as simulated", "[report][benchmark]") {
  const ReportFolder folder("ip_roundtrip");
  const std::string path = write_with("inference-perf", folder, run_info());
  const BenchmarkRun run = read_benchmark(path);
  CHECK(run.format == "inference-perf");
  check_requests(run);
  // The decode time spread evenly over the gaps: 300 ms / 3; 876,543,214 ns / 4 with the
  // remainder of 2 on the first two gaps.
  CHECK(run.requests[0].itl_ns == std::vector<Tick>{100'000'000, 100'000'000, 100'000'000});
  CHECK(run.requests[1].itl_ns.empty());
  CHECK(run.requests[4].itl_ns == std::vector<Tick>{219'135'804, 219'135'804, 219'135'803, 219'135'803});
  CHECK(run.requests[2].error == "Rejected: queue_full");
  CHECK(run.requests[3].error == "Unfinished: the run stopped with the request in flight");
  CHECK(run.requests[3].output_tokens == 0);  // no response metrics for a failed request

  // The stage comes from stage_0_lifecycle_metrics.json written beside it.
  REQUIRE(run.stages.size() == 1);
  CHECK(run.stages[0].name == "stage 0");
  REQUIRE(run.stages[0].rate_per_s.has_value());
  CHECK(*run.stages[0].rate_per_s == 4.0);
  CHECK_FALSE(run.stages[0].max_concurrency.has_value());
  CHECK(*run.stages[0].duration_s == Approx(2.5).epsilon(1e-15));  // first send .. the run's end

  const nlohmann::json stage = read_json(folder.file("stage_0_lifecycle_metrics.json"));
  CHECK(stage["benchmark_time_seconds"].get<double>() == Approx(2.5).epsilon(1e-15));
  CHECK(stage["load_summary"]["count"] == 5);
  CHECK(stage["load_summary"]["requested_rate"] == 4.0);
  CHECK(stage["load_summary"]["send_duration"].get<double>() == Approx(1.000000001).epsilon(1e-15));
  CHECK(stage["load_summary"]["achieved_rate"].get<double>() == Approx(5 / 1.000000001).epsilon(1e-14));
  CHECK(stage["load_summary"]["schedule_delay"]["max"] == 0.0);
  CHECK(stage["successes"]["count"] == 3);
  // TTFT and TPOT only for streamed requests (two token times or more, which the
  // one-token request is not): TTFT 0.1 and 0.123456788 s; TPOT 0.3 / 3 and 0.876543214 / 4.
  const auto& latency = stage["successes"]["latency"];
  CHECK(latency["time_to_first_token"]["mean"].get<double>() == Approx((0.1 + 0.123456788) / 2).epsilon(1e-14));
  CHECK(latency["time_to_first_token"]["min"].get<double>() == Approx(0.1).epsilon(1e-14));
  CHECK(latency["time_to_first_token"]["median"].get<double>() == Approx((0.1 + 0.123456788) / 2).epsilon(1e-14));
  CHECK(latency["time_per_output_token"]["mean"].get<double>() == Approx((0.1 + 0.2191358035) / 2).epsilon(1e-12));
  CHECK(latency["request_latency"]["max"].get<double>() == Approx(1.000000002).epsilon(1e-14));
  // Throughput over the 2.5 s from the first send to the last end: 117 prompt tokens and
  // 10 output tokens of the completed requests.
  CHECK(stage["successes"]["throughput"]["input_tokens_per_sec"].get<double>() == Approx(117 / 2.5).epsilon(1e-14));
  CHECK(stage["successes"]["throughput"]["output_tokens_per_sec"].get<double>() == Approx(10 / 2.5).epsilon(1e-14));
  CHECK(stage["successes"]["throughput"]["requests_per_sec"].get<double>() == Approx(3 / 2.5).epsilon(1e-14));
  CHECK(stage["successes"]["prompt_tokens"]["cached"] == 32.0);
  CHECK(stage["successes"]["prompt_tokens"]["uncached"] == 85.0);
  CHECK(stage["failures"]["count"] == 2);
  CHECK(stage["failures"]["by_label"]["rejected"]["count"] == 1);
  CHECK(stage["failures"]["by_label"]["unfinished"]["count"] == 1);
  CHECK(stage["failures"]["prompt_tokens"]["total"] == 70.0);
}

TEST_CASE("inference-perf writer: a closed loop keeps its concurrency and no rate", "[report][benchmark]") {
  const ReportFolder folder("ip_closed");
  BenchmarkRunInfo info = run_info();
  info.request_rate_per_s.reset();
  info.max_concurrency = 3;
  const BenchmarkRun run = read_benchmark(write_with("inference-perf", folder, info));
  REQUIRE(run.stages.size() == 1);
  CHECK_FALSE(run.stages[0].rate_per_s.has_value());
  CHECK(*run.stages[0].max_concurrency == 3);
}

TEST_CASE("guidellm writer: read back - every request and the stage as simulated", "[report][benchmark]") {
  const ReportFolder folder("gl_roundtrip");
  const std::string path = write_with("guidellm", folder, run_info());
  const BenchmarkRun run = read_benchmark(path);
  CHECK(run.format == "guidellm");
  CHECK(run.model == "servesim/test-model");
  CHECK(*run.seed == 7);
  check_requests(run);
  for (const BenchmarkRequest& r : run.requests) CHECK(r.itl_ns.empty());  // GuideLLM has no per-token times
  CHECK(run.requests[2].error == "rejected by servesim: queue_full");
  CHECK(run.requests[3].error == "incomplete: the benchmark ended before it finished");
  CHECK(run.requests[3].output_tokens == 2);  // the tokens it had produced
  REQUIRE(run.stages.size() == 1);
  CHECK(run.stages[0].name == "poisson@4.00");
  CHECK(*run.stages[0].rate_per_s == 4.0);
  CHECK(run.stages[0].burstiness == 1.0);
  CHECK_FALSE(run.stages[0].max_concurrency.has_value());
  CHECK(*run.stages[0].duration_s == Approx(2.5).epsilon(1e-15));

  const nlohmann::json report = read_json(path);
  const auto& metrics = report["benchmarks"][0]["metrics"];
  CHECK(metrics["request_totals"]["successful"] == 3);
  CHECK(metrics["request_totals"]["incomplete"] == 1);
  CHECK(metrics["request_totals"]["errored"] == 1);
  // TTFT of the completed requests in ms: 100, 50, 123.456788.
  const auto& ttft = metrics["time_to_first_token_ms"]["successful"];
  CHECK(ttft["mean"].get<double>() == Approx((100 + 50 + 123.456788) / 3).epsilon(1e-12));
  CHECK(ttft["percentiles"]["p50"].get<double>() == Approx(100).epsilon(1e-12));
  CHECK(ttft["max"].get<double>() == Approx(123.456788).epsilon(1e-12));
  // GuideLLM's time per output token includes the first: (last token - start) / tokens,
  // weighted by tokens: 400 ms / 4 (x4), 50 / 1 (x1), 1000.000002 / 5 (x5).
  const auto& tpot = metrics["time_per_output_token_ms"]["successful"];
  CHECK(tpot["count"] == 10);
  CHECK(tpot["mean"].get<double>() == Approx((400 + 50 + 1000.000002) / 10).epsilon(1e-12));
  // Cumulative probabilities 0.1 (50), 0.5 (100), 1 (200.0000004): the median is 100.
  CHECK(tpot["percentiles"]["p50"].get<double>() == Approx(100).epsilon(1e-12));
  CHECK(tpot["percentiles"]["p90"].get<double>() == Approx(200.0000004).epsilon(1e-12));
  // Inter-token latency, weighted by tokens - 1: 300 / 3 (x3), 876.543214 / 4 (x4).
  const auto& itl = metrics["inter_token_latency_ms"]["successful"];
  CHECK(itl["count"] == 7);
  CHECK(itl["mean"].get<double>() == Approx((300 + 876.543214) / 7).epsilon(1e-12));
  CHECK(metrics["prompt_token_count"]["total"]["total_sum"].get<double>() == Approx(187).epsilon(1e-12));
}

TEST_CASE("guidellm writer: the strategy of closed loops - constant and gamma open loops", "[report][benchmark]") {
  const ReportFolder folder("gl_strategies");
  BenchmarkRunInfo info = run_info();
  info.request_rate_per_s.reset();
  info.max_concurrency = 1;
  CHECK(read_benchmark(write_with("guidellm", folder, info)).stages[0].name == "synchronous");
  info.max_concurrency = 3;
  BenchmarkRun run = read_benchmark(write_with("guidellm", folder, info));
  CHECK(run.stages[0].name == "concurrent@3");
  CHECK(*run.stages[0].max_concurrency == 3);
  info.max_concurrency.reset();
  run = read_benchmark(write_with("guidellm", folder, info));
  CHECK(run.stages[0].name == "throughput");
  CHECK_FALSE(run.stages[0].max_concurrency.has_value());
  info.request_rate_per_s = 2.5;
  info.burstiness = std::numeric_limits<double>::infinity();
  run = read_benchmark(write_with("guidellm", folder, info));
  CHECK(run.stages[0].name == "constant@2.50");
  CHECK(std::isinf(run.stages[0].burstiness));
  info.burstiness = 0.25;
  run = read_benchmark(write_with("guidellm", folder, info));
  CHECK(run.stages[0].name == "poisson@2.50");
  CHECK(run.stages[0].burstiness == 0.25);
}

}  // namespace inference_perf_guidellm_roundtrip_test
