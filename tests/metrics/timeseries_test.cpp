// TimeseriesWriter: rows per replica per interval from hand-made step samples.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "sim/metrics/timeseries.h"

namespace timeseries_test {

using namespace servesim;

namespace {

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

StepSample sample(int replica, double start_s, double dur_s, std::int64_t batch, std::int64_t prefill,
                  std::int64_t decode, std::int64_t out, std::int64_t kv, std::int64_t waiting, std::int64_t running) {
  StepSample s;
  s.pool = 0;
  s.replica = replica;
  s.start_ns = static_cast<Tick>(start_s * 1e9);
  s.duration_ns = static_cast<Tick>(dur_s * 1e9);
  s.batch = batch;
  s.prefill_tokens = prefill;
  s.decode_tokens = decode;
  s.output_tokens = out;
  s.kv_used_blocks = kv;
  s.kv_total_blocks = 100;
  s.waiting = waiting;
  s.running = running;
  return s;
}

ReplicaGauges gauges(std::int64_t kv, std::int64_t waiting, std::int64_t running) {
  return ReplicaGauges{kv, 100, waiting, running};
}

Tick at_s(double s) { return static_cast<Tick>(s * 1e9); }

}  // namespace

TEST_CASE("timeseries rows hold per interval means and maxima of the steps that started in it", "[metrics][timeseries]") {
  std::ostringstream out;
  TimeseriesWriter w(out, 1'000'000'000, {"main"}, {2});
  // Interval 0: replica 0 runs two steps, replica 1 one; each replica empties at the end of
  // its last step.
  w.on_step(sample(0, 0.1, 0.2, 2, 100, 1, 1, 10, 3, 2));
  w.on_step(sample(0, 0.5, 0.1, 4, 0, 4, 4, 20, 1, 4));
  w.on_gauges(0, 0, at_s(0.6), gauges(0, 0, 0));
  w.on_step(sample(1, 0.7, 0.25, 1, 50, 0, 1, 5, 0, 1));
  w.on_gauges(0, 1, at_s(0.95), gauges(0, 0, 0));
  // Interval 1: no step starts; a request queues on replica 1 and waits into interval 2.
  w.on_gauges(0, 1, at_s(1.4), gauges(0, 1, 0));
  // Interval 2: replica 1 schedules it; replica 0 takes a request that starts at once.
  w.on_step(sample(1, 2.05, 0.1, 1, 50, 0, 1, 4, 0, 1));
  w.on_gauges(0, 0, at_s(2.2), gauges(0, 1, 0));
  w.on_step(sample(0, 2.2, 0.5, 3, 0, 3, 6, 30, 0, 3));
  w.finish();

  const auto rows = parse_csv(out.str());
  REQUIRE(rows.size() == 1 + 3 * 2);
  CHECK(out.str().substr(0, out.str().find('\n')) == TimeseriesWriter::kHeader);
  CHECK(w.rows_written() == 6);
  // time_s,pool,replica,steps,busy_s,batch_mean,batch_max,kv_used_blocks_max,kv_total_blocks,
  // kv_occupancy_mean,kv_occupancy_max,waiting_mean,waiting_max,running_mean,running_max,
  // prefill_tokens,decode_tokens,output_tokens,output_tokens_per_s,tokens_per_s
  CHECK(rows[1] == std::vector<std::string>{"0", "main", "0", "2", "0.3", "3", "4", "20", "100", "0.15", "0.2", "2",
                                            "3", "3", "4", "100", "5", "5", "5", "105"});
  CHECK(rows[2] == std::vector<std::string>{"0", "main", "1", "1", "0.25", "1", "1", "5", "100", "0.05", "0.05", "0",
                                            "0", "1", "1", "50", "0", "1", "1", "50"});
  // Idle: what the replica held, not the state of the step that closes the interval.
  CHECK(rows[3] == std::vector<std::string>{"1", "main", "0", "0", "0", "0", "0", "0", "100", "0", "0", "0",
                                            "0", "0", "0", "0", "0", "0", "0", "0"});
  CHECK(rows[4] == std::vector<std::string>{"1", "main", "1", "0", "0", "0", "0", "0", "100", "0", "0", "1",
                                            "1", "0", "0", "0", "0", "0", "0", "0"});
  // Replica 0's arrival at 2.2 s was scheduled the same nanosecond: it never waited.
  CHECK(rows[5] == std::vector<std::string>{"2", "main", "0", "1", "0.5", "3", "3", "30", "100", "0.3", "0.3", "0",
                                            "0", "3", "3", "0", "3", "6", "6", "3"});
  // Replica 1's request waited from 1.4 s to 2.05 s: waiting_max 1 in interval 2 as well,
  // though its one step scheduled it (waiting_mean is the post-scheduling count).
  CHECK(rows[6][2] == "1");
  CHECK(rows[6][11] == "0");
  CHECK(rows[6][12] == "1");
}

TEST_CASE("timeseries waiting_max counts requests that queue while a step runs", "[metrics][timeseries]") {
  std::ostringstream out;
  TimeseriesWriter w(out, 1'000'000'000, {"p"}, {1});
  w.on_gauges(0, 0, at_s(0.1), gauges(0, 1, 0));
  w.on_step(sample(0, 0.1, 0.5, 1, 100, 0, 1, 7, 0, 1));
  w.on_gauges(0, 0, at_s(0.2), gauges(7, 1, 1));
  w.on_gauges(0, 0, at_s(0.3), gauges(7, 2, 1));
  w.on_gauges(0, 0, at_s(0.6), gauges(7, 2, 1));  // the step ends; both still wait
  w.on_step(sample(0, 0.6, 0.1, 3, 200, 1, 3, 21, 0, 3));
  w.finish();
  const auto rows = parse_csv(out.str());
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][11] == "0");  // waiting_mean: after each step's scheduling
  CHECK(rows[1][12] == "2");  // waiting_max: the two that queued behind the first step
}

TEST_CASE("timeseries intervals without a step start report what the replica held in them", "[metrics][timeseries]") {
  std::ostringstream out;
  TimeseriesWriter w(out, 1'000'000'000, {"p"}, {1});
  // One step of 2.5 s from 0.1 s: it runs through interval 1 and ends in interval 2, after
  // which the replica is empty until a step at 4.5 s.
  w.on_step(sample(0, 0.1, 2.5, 2, 300, 0, 2, 12, 0, 2));
  w.on_gauges(0, 0, at_s(2.6), gauges(0, 0, 0));
  w.on_step(sample(0, 4.5, 0.1, 1, 100, 0, 1, 7, 0, 1));
  w.finish();
  const auto rows = parse_csv(out.str());
  REQUIRE(rows.size() == 1 + 5);
  // Interval 1: the step is running: 2 requests and their 12 blocks, though no step starts.
  CHECK(rows[2] == std::vector<std::string>{"1", "p", "0", "0", "0", "0", "0", "12", "100", "0.12", "0.12", "0", "0",
                                            "2", "2", "0", "0", "0", "0", "0"});
  // Interval 2: the step ends at 2.6 s; the means give the state at the end, the maxima
  // what was held before.
  CHECK(rows[3] == std::vector<std::string>{"2", "p", "0", "0", "0", "0", "0", "12", "100", "0", "0.12", "0", "0",
                                            "0", "2", "0", "0", "0", "0", "0"});
  // Interval 3: after every request has finished: nothing running, no block held.
  CHECK(rows[4] == std::vector<std::string>{"3", "p", "0", "0", "0", "0", "0", "0", "100", "0", "0", "0", "0",
                                            "0", "0", "0", "0", "0", "0", "0"});
  CHECK(rows[5][3] == "1");
}

TEST_CASE("timeseries throughput divides by the interval length and the file starts at the first step", "[metrics][timeseries]") {
  std::ostringstream out;
  TimeseriesWriter w(out, 250'000'000, {"p"}, {1});
  w.on_step(sample(0, 10.3, 0.01, 8, 0, 8, 8, 1, 0, 8));
  w.on_step(sample(0, 10.4, 0.01, 8, 0, 8, 8, 1, 0, 8));  // same interval [10.25, 10.5)
  w.on_step(sample(0, 10.6, 0.01, 2, 0, 2, 2, 1, 0, 2));
  w.finish();
  const auto rows = parse_csv(out.str());
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][0] == "10.25");
  CHECK(rows[2][0] == "10.5");
  CHECK(rows[1][3] == "2");
  CHECK(rows[1][18] == "64");  // 16 tokens in 0.25 s
  CHECK(rows[2][18] == "8");   // 2 tokens in 0.25 s
  CHECK(rows[2][3] == "1");
}

}  // namespace timeseries_test
