// MetricsRecorder with a warm-up: records it covers reach the request sink (flagged) and
// the outcome counts, never a summary figure; gaps count only after start_measuring_itl.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/metrics/recorder.h"

namespace warmup_test {

using namespace servesim;

namespace {

// A completed request of class 0 on pool 0, replica 0: TTFT `ttft_ms`, E2EL `e2el_ms`,
// `prompt` tokens in, `output` out.
RequestRecord done(std::uint64_t id, double arrival_ms, double ttft_ms, double e2el_ms, std::int64_t prompt,
                   std::int64_t output) {
  RequestRecord r;
  r.id = id;
  r.class_index = 0;
  r.pool_index = 0;
  r.replica_index = 0;
  r.outcome = Outcome::completed;
  r.arrival_ns = ticks_from_ms(arrival_ms);
  r.first_scheduled_ns = r.arrival_ns;
  r.first_token_ns = ticks_from_ms(arrival_ms + ttft_ms);
  r.finish_ns = ticks_from_ms(arrival_ms + e2el_ms);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.output_tokens_done = output;
  return r;
}

}  // namespace

TEST_CASE("warmup rule: the first N arrivals or arrivals before T", "[metrics]") {
  WarmupSpec none;
  CHECK_FALSE(none.any());
  CHECK_FALSE(none.covers(0, 0));
  WarmupSpec w;
  w.requests = 3;
  CHECK(w.covers(2, 1'000'000'000'000));
  CHECK_FALSE(w.covers(3, 0));
  w.requests.reset();
  w.time_ns = 1000;
  CHECK(w.covers(50, 999));
  CHECK_FALSE(w.covers(0, 1000));
  w.requests = 3;  // both: the warm-up lasts until both have passed
  CHECK(w.covers(2, 5000));
  CHECK(w.covers(7, 10));
  CHECK_FALSE(w.covers(3, 1000));
}

TEST_CASE("warmup recorder: warm-up records go to the sink and the counts but not the summary", "[metrics]") {
  MetricsRecorder m({"chat"}, {"main"});
  WarmupSpec w;
  w.requests = 2;
  m.set_warmup(w);
  std::vector<RequestRecord> seen;
  m.add_request_sink([&](const RequestRecord& r) { seen.push_back(r); });

  // Gaps before the first measured arrival are dropped, those after it kept.
  m.record_itl(0, 0, 9'000'000, 10);  // 9 ms x 10: warm-up
  m.start_measuring_itl();
  m.record_itl(0, 0, 2'000'000, 3);   // 2 ms x 3
  m.record_itl(0, 0, 4'000'000, 1);   // 4 ms

  m.record_request(done(0, 0, 900, 5000, 1000, 10));   // warm-up: slow
  m.record_request(done(1, 1, 800, 4000, 1000, 10));   // warm-up: slow
  m.record_request(done(2, 10, 100, 300, 200, 4));     // measured
  m.record_request(done(3, 20, 300, 700, 400, 6));     // measured

  // The recorder's own counts cover every request, so arrivals add up.
  CHECK(m.completed() == 4);
  CHECK(m.warmup_excluded() == 2);
  REQUIRE(seen.size() == 4);
  CHECK(seen[0].warmup);
  CHECK(seen[1].warmup);
  CHECK_FALSE(seen[2].warmup);
  CHECK_FALSE(seen[3].warmup);

  const RunSummary s = m.summarize(2'000'000'000);  // 2 s
  for (const SummaryBlock* b : {&s.overall, &s.classes[0].second, &s.pools[0].second}) {
    CHECK(b->get("completed") == 2);
    CHECK(b->get("warmup_excluded") == 2);
    CHECK(b->is_count("warmup_excluded"));
    CHECK(b->get("total_input_tokens") == 600);
    CHECK(b->get("total_output_tokens") == 10);
    CHECK(b->get("mean_ttft_ms") == Approx(200));   // (100 + 300) / 2
    CHECK(b->get("mean_e2el_ms") == Approx(500));   // (300 + 700) / 2
    CHECK(b->get("request_throughput") == Approx(1.0));  // 2 over 2 s
    CHECK(b->get("mean_itl_ms") == Approx(2.5));    // (3 x 2 + 4) / 4
  }
  REQUIRE(s.pools[0].second.replicas.size() == 1);
  const FieldGroup& replica = s.pools[0].second.replicas[0];
  for (const auto& [name, value] : replica.fields)
    if (name == "completed") CHECK(value == 2);
}

TEST_CASE("warmup recorder: without a warm-up nothing is left out and no field is added", "[metrics]") {
  MetricsRecorder m({"chat"}, {"main"});
  m.record_itl(0, 0, 9'000'000, 10);
  m.record_request(done(0, 0, 900, 5000, 1000, 10));
  const RunSummary s = m.summarize(1'000'000'000);
  CHECK(s.overall.get("completed") == 1);
  CHECK_FALSE(s.overall.has("warmup_excluded"));
  CHECK(s.overall.get("mean_itl_ms") == Approx(9));
  CHECK(m.warmup_excluded() == 0);
}

}  // namespace warmup_test
