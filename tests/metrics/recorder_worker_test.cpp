// MetricsRecorder with its updates on a worker thread gives the summary of the same updates
// made in place, byte for byte: a long stream of requests and inter-token gaps (single
// ones and batches with count runs), across a warm-up, SLOs and prices, into two classes
// on two pools and into one class on one pool (the recorder's shortcut).
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/core/rng.h"
#include "sim/metrics/recorder.h"
#include "sim/report/summary_writer.h"

namespace recorder_worker_test {

using namespace servesim;

namespace {

struct Outcomes {
  std::string summary_json;
  std::vector<std::uint64_t> sunk_ids;  // the request sink's calls, in order
  std::vector<std::uint64_t> written_ids;  // the record writer's, in order
  double written_cost_usd = 0;             // the writer's records' costs, summed in order
  std::int64_t written_warmup = 0;
  std::int64_t completed = 0, rejected = 0, unfinished = 0, warmup_excluded = 0;
};

// `requests` requests of `classes` classes on `pools` pools, with gaps between them.
Outcomes run(MetricsRecorder::Worker worker, int classes, int pools, int requests) {
  std::vector<std::string> class_names, pool_names;
  for (int c = 0; c < classes; ++c) class_names.push_back("class" + std::to_string(c));
  for (int p = 0; p < pools; ++p) pool_names.push_back("pool" + std::to_string(p));
  MetricsRecorder recorder(class_names, pool_names);
  recorder.set_worker(worker);
  WarmupSpec warmup;
  warmup.requests = 500;
  recorder.set_warmup(warmup);
  std::vector<SloTargets> slos(static_cast<std::size_t>(classes));
  slos[0].ttft_ns = 200 * kNsPerMs;
  slos[0].itl_ns = 40 * kNsPerMs;
  recorder.set_class_slos(slos);
  recorder.set_pool_prices(std::vector<double>(static_cast<std::size_t>(pools), 1e-12));
  Outcomes out;
  recorder.add_request_sink([&out](const RequestRecord& r) { out.sunk_ids.push_back(r.id); });
  recorder.add_record_writer([&out](const RequestRecord& r) {
    out.written_ids.push_back(r.id);
    out.written_cost_usd += r.cost_usd;
    out.written_warmup += r.warmup ? 1 : 0;
  });
  std::vector<QuantileSketch::IndexHint*> hints;
  for (int p = 0; p < pools; ++p) hints.push_back(recorder.new_index_hint());

  Rng rng(7);
  std::vector<Tick> gaps;
  std::vector<QuantileSketch::CountRun> runs;
  for (int i = 0; i < requests; ++i) {
    const int cls = static_cast<int>(rng.uniform_int(0, classes - 1));
    const int pool = static_cast<int>(rng.uniform_int(0, pools - 1));
    if (i == 600) recorder.start_measuring_itl();
    // A few single gaps and one batch of a replica's lazy gaps.
    for (int g = 0; g < 3; ++g)
      recorder.record_itl(cls, pool, rng.uniform_int(5, 60) * kNsPerMs + rng.uniform_int(0, 999),
                          rng.uniform_int(1, 8), hints[static_cast<std::size_t>(pool)]);
    gaps.clear();
    runs.clear();
    const auto n = static_cast<std::size_t>(rng.uniform_int(1, 40));
    for (std::size_t g = 0; g < n; ++g) gaps.push_back(rng.uniform_int(6'000'000, 9'000'000));
    runs.push_back({0, rng.uniform_int(1, 30)});
    if (n > 2) runs.push_back({n / 2, rng.uniform_int(0, 30)});
    recorder.record_itl_gaps(cls, pool, gaps, runs, hints[static_cast<std::size_t>(pool)]);

    RequestRecord r;
    r.id = static_cast<std::uint64_t>(i);
    r.class_index = cls;
    r.pool_index = pool;
    r.replica_index = static_cast<int>(rng.uniform_int(0, 3));
    r.arrival_ns = i * 50 * kNsPerMs;
    const std::int64_t roll = rng.uniform_int(0, 99);
    if (roll < 3) {
      r.outcome = Outcome::rejected;
      r.reject_reason = "queue_full";
      if (roll == 0) r.pool_index = -1;  // refused before any pool
    } else if (roll < 5) {
      r.outcome = Outcome::unfinished;
    } else {
      r.first_scheduled_ns = r.arrival_ns + rng.uniform_int(0, 50) * kNsPerMs;
      r.first_token_ns = r.first_scheduled_ns + rng.uniform_int(20, 400) * kNsPerMs + rng.uniform_int(0, 999);
      r.output_tokens = r.output_tokens_done = rng.uniform_int(1, 300);
      r.finish_ns = r.first_token_ns + r.output_tokens * rng.uniform_int(5, 50) * kNsPerMs;
      r.prompt_tokens = rng.uniform_int(10, 4000);
      r.cached_prompt_tokens = rng.uniform_int(0, r.prompt_tokens);
      r.acct.gpu.decode_units = rng.uniform_int(0, 1'000'000'000);
      r.acct.max_itl_ns = rng.uniform_int(5, 80) * kNsPerMs;
    }
    recorder.record_request(r);
  }
  std::ostringstream json;
  write_summary_json(recorder.summarize(requests * 50 * kNsPerMs), json);
  out.summary_json = json.str();
  out.completed = recorder.completed();
  out.rejected = recorder.rejected();
  out.unfinished = recorder.unfinished();
  out.warmup_excluded = recorder.warmup_excluded();
  return out;
}

void check_same(const Outcomes& a, const Outcomes& b) {
  CHECK(a.summary_json == b.summary_json);
  CHECK(a.sunk_ids == b.sunk_ids);
  CHECK(a.written_ids == b.written_ids);
  CHECK(a.written_cost_usd == b.written_cost_usd);
  CHECK(a.written_warmup == b.written_warmup);
  CHECK(a.completed == b.completed);
  CHECK(a.rejected == b.rejected);
  CHECK(a.unfinished == b.unfinished);
  CHECK(a.warmup_excluded == b.warmup_excluded);
}

}  // namespace

TEST_CASE("recorder worker: two classes on two pools - the summary of updates made in place", "[metrics]") {
  // More requests than the recorder makes in place before its worker starts (for_long_runs).
  const int requests = static_cast<int>(MetricsRecorder::kRequestsInPlace) * 3;
  const Outcomes in_place = run(MetricsRecorder::Worker::never, 2, 2, requests);
  CHECK(in_place.completed + in_place.rejected + in_place.unfinished == requests);
  CHECK(in_place.warmup_excluded == 500);
  CHECK(in_place.sunk_ids.size() == static_cast<std::size_t>(requests));
  CHECK(in_place.written_ids == in_place.sunk_ids);  // every record, in the sinks' order
  CHECK(in_place.written_warmup == 500);
  CHECK(in_place.written_cost_usd > 0);
  check_same(in_place, run(MetricsRecorder::Worker::always, 2, 2, requests));
  check_same(in_place, run(MetricsRecorder::Worker::for_long_runs, 2, 2, requests));
}

TEST_CASE("recorder worker: one class on one pool - the summary of updates made in place", "[metrics]") {
  const int requests = 9000;
  const Outcomes in_place = run(MetricsRecorder::Worker::never, 1, 1, requests);
  check_same(in_place, run(MetricsRecorder::Worker::always, 1, 1, requests));
}

TEST_CASE("recorder worker: a recorder read before its last batch is full sees every update", "[metrics]") {
  // Fewer updates than one batch: settle() hands the partial batch over before reading.
  const Outcomes in_place = run(MetricsRecorder::Worker::never, 2, 2, 700);
  const Outcomes worker = run(MetricsRecorder::Worker::always, 2, 2, 700);
  CHECK(worker.completed > 600);
  check_same(in_place, worker);
}

}  // namespace recorder_worker_test
