// MetricsRecorder against a handful of hand-made requests whose statistics are worked out
// by hand below (values in ms).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/metrics/recorder.h"

namespace recorder_test {

using namespace servesim;

namespace {

constexpr int kChat = 0, kBatch = 1;
constexpr int kPool0 = 0, kPool1 = 1;

// Sketch estimates are within 0.5% of the exact value.
Approx sketched(double exact) { return Approx(exact).epsilon(0.005).margin(1e-12); }

RequestRecord completed(std::uint64_t id, int cls, int pool, double arrival_ms, double sched_ms,
                        double first_token_ms, double finish_ms, std::int64_t prompt,
                        std::int64_t output, std::int64_t cached) {
  RequestRecord r;
  r.id = id;
  r.class_index = cls;
  r.pool_index = pool;
  r.replica_index = 0;
  r.outcome = Outcome::completed;
  r.arrival_ns = ticks_from_ms(arrival_ms);
  r.first_scheduled_ns = ticks_from_ms(sched_ms);
  r.first_token_ns = first_token_ms < 0 ? -1 : ticks_from_ms(first_token_ms);
  r.finish_ns = ticks_from_ms(finish_ms);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.output_tokens_done = output;
  r.cached_prompt_tokens = cached;
  return r;
}

RequestRecord rejected(std::uint64_t id, int cls, int pool, const char* reason) {
  RequestRecord r;
  r.id = id;
  r.class_index = cls;
  r.pool_index = pool;
  r.outcome = Outcome::rejected;
  r.reject_reason = reason;
  r.arrival_ns = ticks_from_ms(4000.0 + id);
  r.prompt_tokens = 100000;  // must not count: only completed requests' tokens do
  return r;
}

// The scenario of this file:
//   R1 chat/p0: arrival 0, scheduled 10, first token 100, finish 500, 1000 prompt (200
//      cached), 5 output -> ttft 100, tpot 400/4 = 100, e2el 500, queue 10
//   R2 chat/p0: 1000, 1020, 1300, 1500, 500 prompt, 3 output -> ttft 300, tpot 100,
//      e2el 500, queue 20
//   R3 chat/p1: 2000, 2000, 2200, 2200, 100 prompt, 1 output -> ttft 200, no tpot,
//      e2el 200, queue 0
//   R4 batch/p1: 3000, 3050, none, 3250, 2000 prompt, 0 output (embedding) -> no ttft,
//      e2el 250, queue 50
//   R5 batch rejected before routing (queue_full), R6 batch rejected on p1
//      (kv_too_small), R8 batch rejected before routing (queue_full)
//   R7 chat/p0 unfinished with 3 tokens out
//   ITLs (all chat on p0): R1 4 x 100, R2 50 and 150, R7 2 x 30
MetricsRecorder make_recorder(std::vector<std::uint64_t>* sunk = nullptr) {
  MetricsRecorder recorder({"chat", "batch"}, {"p0", "p1"});
  if (sunk != nullptr) {
    recorder.add_request_sink([sunk](const RequestRecord& r) { sunk->push_back(r.id); });
  }
  recorder.record_itl(kChat, kPool0, ticks_from_ms(100), 4);
  recorder.record_itl(kChat, kPool0, ticks_from_ms(50));
  recorder.record_itl(kChat, kPool0, ticks_from_ms(150));
  recorder.record_itl(kChat, kPool0, ticks_from_ms(30));
  recorder.record_itl(kChat, kPool0, ticks_from_ms(30));
  recorder.record_request(completed(1, kChat, kPool0, 0, 10, 100, 500, 1000, 5, 200));
  recorder.record_request(completed(2, kChat, kPool0, 1000, 1020, 1300, 1500, 500, 3, 0));
  recorder.record_request(completed(3, kChat, kPool1, 2000, 2000, 2200, 2200, 100, 1, 0));
  recorder.record_request(completed(4, kBatch, kPool1, 3000, 3050, -1, 3250, 2000, 0, 0));
  recorder.record_request(rejected(5, kBatch, -1, "queue_full"));
  recorder.record_request(rejected(6, kBatch, kPool1, "kv_too_small"));
  RequestRecord r7;
  r7.id = 7;
  r7.class_index = kChat;
  r7.pool_index = kPool0;
  r7.outcome = Outcome::unfinished;
  r7.arrival_ns = ticks_from_ms(9000);
  r7.first_scheduled_ns = ticks_from_ms(9001);
  r7.first_token_ns = ticks_from_ms(9100);
  r7.prompt_tokens = 700;
  r7.output_tokens = 50;
  r7.output_tokens_done = 3;
  recorder.record_request(r7);
  recorder.record_request(rejected(8, kBatch, -1, "queue_full"));
  return recorder;
}

const SummaryBlock& block_named(const std::vector<std::pair<std::string, SummaryBlock>>& blocks,
                                const std::string& name) {
  for (const auto& [block_name, block] : blocks) {
    if (block_name == name) return block;
  }
  FAIL("no block " << name);
  return blocks.front().second;
}

}  // namespace

TEST_CASE("recorder: summary fields come in the documented order", "[metrics]") {
  const RunSummary summary = make_recorder().summarize(10 * kNsPerSec);
  const std::vector<std::string> expected{
      "completed", "total_input_tokens", "total_output_tokens", "duration",
      "request_throughput", "output_throughput", "total_token_throughput",
      "mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms",
      "mean_tpot_ms", "median_tpot_ms", "std_tpot_ms", "p99_tpot_ms",
      "mean_itl_ms", "median_itl_ms", "std_itl_ms", "p99_itl_ms",
      "mean_e2el_ms", "median_e2el_ms", "std_e2el_ms", "p99_e2el_ms",
      "p50_ttft_ms", "p90_ttft_ms", "p95_ttft_ms", "p999_ttft_ms",
      "p50_tpot_ms", "p90_tpot_ms", "p95_tpot_ms", "p999_tpot_ms",
      "p50_itl_ms", "p90_itl_ms", "p95_itl_ms", "p999_itl_ms",
      "p50_e2el_ms", "p90_e2el_ms", "p95_e2el_ms", "p999_e2el_ms",
      "p50_queue_ms", "p90_queue_ms", "p95_queue_ms", "p99_queue_ms", "p999_queue_ms",
      "mean_queue_ms", "mean_kv_transfer_ms", "prefix_cache_hit_rate", "rejected", "unfinished",
      "preemptions", "preempted_s", "truncated", "clamped_input", "clamped_output",
      // after the contract's fields (docs/metrics.md)
      "slo_met", "slo_attainment", "goodput", "slo_attainment_mean_itl", "goodput_mean_itl",
      "max_ttft_ms", "max_tpot_ms", "max_itl_ms", "max_e2el_ms", "max_queue_ms", "cached_input_tokens", "uncached_input_tokens",
      "prefill_time_saved_s", "cost_usd", "cost_per_1m_input_tokens", "cost_per_1m_cached_input_tokens",
      "cost_per_1m_output_tokens", "cost_per_request", "sessions", "cost_per_session"};
  std::vector<std::string> names;
  for (const auto& field : summary.overall.fields) names.push_back(field.first);
  CHECK(names == expected);
  for (const auto& [name, block] : summary.classes) {
    std::vector<std::string> class_names;
    for (const auto& field : block.fields) class_names.push_back(field.first);
    CHECK(class_names == expected);
  }
  REQUIRE(summary.classes.size() == 2);
  CHECK(summary.classes[0].first == "chat");
  CHECK(summary.classes[1].first == "batch");
  REQUIRE(summary.pools.size() == 2);
  CHECK(summary.pools[0].first == "p0");
  CHECK(summary.pools[1].first == "p1");
  CHECK(summary.overall.is_count("completed"));
  CHECK(summary.overall.is_count("rejected"));
  CHECK_FALSE(summary.overall.is_count("duration"));
}

TEST_CASE("recorder: whole-run fields match hand arithmetic", "[metrics]") {
  std::vector<std::uint64_t> sunk;
  const MetricsRecorder recorder = make_recorder(&sunk);
  CHECK(sunk == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(recorder.completed() == 4);
  CHECK(recorder.rejected() == 3);
  CHECK(recorder.unfinished() == 1);

  const SummaryBlock s = recorder.summarize(10 * kNsPerSec).overall;
  CHECK(s.get("completed") == 4);
  CHECK(s.get("total_input_tokens") == 3600);  // 1000 + 500 + 100 + 2000
  CHECK(s.get("total_output_tokens") == 9);    // 5 + 3 + 1 + 0
  CHECK(s.get("duration") == 10.0);
  CHECK(s.get("request_throughput") == Approx(0.4).epsilon(1e-15));
  CHECK(s.get("output_throughput") == Approx(0.9).epsilon(1e-15));
  CHECK(s.get("total_token_throughput") == Approx(360.9).epsilon(1e-15));

  // TTFT {100, 300, 200}: std = sqrt((100^2 + 100^2 + 0) / 3); p99 at rank 1.98: 200 + 0.98 * 100.
  CHECK(s.get("mean_ttft_ms") == Approx(200.0).epsilon(1e-12));
  CHECK(s.get("median_ttft_ms") == sketched(200.0));
  CHECK(s.get("std_ttft_ms") == Approx(std::sqrt(20000.0 / 3.0)).epsilon(1e-12));
  CHECK(s.get("p99_ttft_ms") == sketched(298.0));
  CHECK(s.get("p50_ttft_ms") == sketched(200.0));
  CHECK(s.get("p90_ttft_ms") == sketched(280.0));  // rank 1.8
  CHECK(s.get("p999_ttft_ms") == sketched(299.8));  // rank 1.998
  // TPOT {100, 100} (R3 has one token, R4 none): a point mass, so exact.
  CHECK(s.get("mean_tpot_ms") == Approx(100.0).epsilon(1e-12));
  CHECK(s.get("median_tpot_ms") == 100.0);
  CHECK(s.get("std_tpot_ms") == 0.0);
  CHECK(s.get("p99_tpot_ms") == 100.0);
  // ITL sorted {30, 30, 50, 100, 100, 100, 100, 150}: mean 660 / 8; squared deviations
  // 2 * 52.5^2 + 32.5^2 + 4 * 17.5^2 + 67.5^2 = 12350; p99 at rank 6.93: 100 + 0.93 * 50.
  CHECK(s.get("mean_itl_ms") == Approx(82.5).epsilon(1e-12));
  CHECK(s.get("median_itl_ms") == sketched(100.0));
  CHECK(s.get("std_itl_ms") == Approx(std::sqrt(12350.0 / 8.0)).epsilon(1e-12));
  CHECK(s.get("p99_itl_ms") == sketched(146.5));
  CHECK(s.get("p90_itl_ms") == sketched(115.0));   // rank 6.3
  CHECK(s.get("p95_itl_ms") == sketched(132.5));   // rank 6.65
  CHECK(s.get("p999_itl_ms") == sketched(149.65)); // rank 6.993
  // E2EL sorted {200, 250, 500, 500}: median at rank 1.5 = 375; squared deviations from
  // 362.5: 162.5^2 + 112.5^2 + 2 * 137.5^2 = 76875.
  CHECK(s.get("mean_e2el_ms") == Approx(362.5).epsilon(1e-12));
  CHECK(s.get("median_e2el_ms") == sketched(375.0));
  CHECK(s.get("std_e2el_ms") == Approx(std::sqrt(76875.0 / 4.0)).epsilon(1e-12));
  CHECK(s.get("p99_e2el_ms") == sketched(500.0));
  // Queue sorted {0, 10, 20, 50}: p50 at rank 1.5 = 15; p99 at rank 2.97 = 20 + 0.97 * 30.
  CHECK(s.get("mean_queue_ms") == Approx(20.0).epsilon(1e-12));
  CHECK(s.get("p50_queue_ms") == sketched(15.0));
  CHECK(s.get("p99_queue_ms") == sketched(49.1));
  CHECK(s.get("p999_queue_ms") == sketched(49.91));

  CHECK(s.get("prefix_cache_hit_rate") == Approx(200.0 / 3600.0).epsilon(1e-15));
  CHECK(s.get("rejected") == 3);
  CHECK(s.get("unfinished") == 1);
  CHECK(s.rejected_reasons == std::map<std::string, std::int64_t>{{"kv_too_small", 1},
                                                                  {"queue_full", 2}});
}

TEST_CASE("recorder: classes and pools each count only their own requests", "[metrics]") {
  const RunSummary summary = make_recorder().summarize(10 * kNsPerSec);
  const SummaryBlock& chat = block_named(summary.classes, "chat");
  CHECK(chat.get("completed") == 3);
  CHECK(chat.get("total_input_tokens") == 1600);
  CHECK(chat.get("total_output_tokens") == 9);
  CHECK(chat.get("request_throughput") == Approx(0.3).epsilon(1e-15));
  CHECK(chat.get("mean_e2el_ms") == Approx(400.0).epsilon(1e-12));  // {500, 500, 200}
  CHECK(chat.get("mean_itl_ms") == Approx(82.5).epsilon(1e-12));
  CHECK(chat.get("prefix_cache_hit_rate") == Approx(200.0 / 1600.0).epsilon(1e-15));
  CHECK(chat.get("rejected") == 0);
  CHECK(chat.get("unfinished") == 1);
  CHECK(chat.rejected_reasons.empty());

  const SummaryBlock& batch = block_named(summary.classes, "batch");
  CHECK(batch.get("completed") == 1);
  CHECK(batch.get("total_input_tokens") == 2000);
  CHECK(batch.get("total_output_tokens") == 0);
  // An embedding request has no first token: TTFT, TPOT and ITL have no samples, so none of
  // their statistics exists (NaN, null in summary.json), where a 0 would read as instant.
  for (const char* metric : {"ttft", "tpot", "itl"})
    for (const char* stat : {"mean", "median", "std", "p50", "p90", "p95", "p99", "p999", "max"})
      CHECK(std::isnan(batch.get(std::string(stat) + "_" + metric + "_ms")));
  CHECK(batch.get("mean_e2el_ms") == Approx(250.0).epsilon(1e-12));
  CHECK(batch.get("p50_queue_ms") == sketched(50.0));
  CHECK(batch.get("prefix_cache_hit_rate") == 0.0);
  CHECK(batch.get("rejected") == 3);
  CHECK(batch.get("unfinished") == 0);

  const SummaryBlock& p0 = block_named(summary.pools, "p0");
  CHECK(p0.get("completed") == 2);
  CHECK(p0.get("total_input_tokens") == 1500);
  CHECK(p0.get("unfinished") == 1);
  CHECK(p0.get("rejected") == 0);
  CHECK(p0.get("mean_itl_ms") == Approx(82.5).epsilon(1e-12));
  const SummaryBlock& p1 = block_named(summary.pools, "p1");
  CHECK(p1.get("completed") == 2);
  CHECK(p1.get("total_input_tokens") == 2100);
  CHECK(p1.get("mean_e2el_ms") == Approx(225.0).epsilon(1e-12));  // {200, 250}
  CHECK(std::isnan(p1.get("mean_itl_ms")));  // no gaps in p1: R3 has one token, R4 none
  // Requests rejected before routing belong to no pool.
  CHECK(p1.get("rejected") == 1);
  CHECK(p1.rejected_reasons == std::map<std::string, std::int64_t>{{"kv_too_small", 1}});
}

TEST_CASE("recorder: TPOT is (finish - first token) / (tokens - 1)", "[metrics]") {
  MetricsRecorder recorder({"only"}, {"p"});
  // 10 tokens, first at 1.0 s, last at 1.9 s: 9 gaps over 900 ms -> 100 ms, while
  // e2el / tokens would give 190 ms and (e2el - ttft) / tokens 90 ms.
  recorder.record_request(completed(1, 0, 0, 0, 0, 1000, 1900, 10, 10, 0));
  // 4 tokens from 200 ms to 500 ms: 3 gaps -> 100 ms again.
  recorder.record_request(completed(2, 0, 0, 100, 100, 200, 500, 10, 4, 0));
  const SummaryBlock s = recorder.summarize(kNsPerSec).overall;
  CHECK(s.get("mean_tpot_ms") == Approx(100.0).epsilon(1e-12));
  CHECK(s.get("median_tpot_ms") == 100.0);
  CHECK(s.get("mean_ttft_ms") == Approx(550.0).epsilon(1e-12));  // {1000, 100}
}

TEST_CASE("recorder: a zero-length run reports zero throughputs - not infinities", "[metrics]") {
  MetricsRecorder recorder({"only"}, {});
  recorder.record_request(completed(1, 0, -1, 0, 0, 0, 0, 10, 1, 0));
  const SummaryBlock s = recorder.summarize(0).overall;
  CHECK(s.get("completed") == 1);
  CHECK(s.get("duration") == 0.0);
  CHECK(s.get("request_throughput") == 0.0);
  CHECK(s.get("output_throughput") == 0.0);
  CHECK(std::isnan(s.get("no_such_field")));
}

}  // namespace recorder_test
