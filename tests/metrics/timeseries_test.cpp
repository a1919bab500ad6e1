// TimeseriesWriter: rows per replica per interval from hand-made step samples.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "sim/metrics/timeseries.h"

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

}  // namespace

TEST_CASE("timeseries rows hold per interval means and maxima of the steps that started in it", "[metrics][timeseries]") {
  std::ostringstream out;
  int gauge_calls = 0;
  TimeseriesWriter w(out, 1'000'000'000, {"main"}, {2}, [&](int, int replica) {
    ++gauge_calls;
    return ReplicaGauges{replica == 0 ? 7 : 0, 100, replica == 0 ? 2 : 0, 1};
  });
  // Interval 0: replica 0 runs two steps, replica 1 one.
  w.on_step(sample(0, 0.1, 0.2, 2, 100, 1, 1, 10, 3, 2));
  w.on_step(sample(0, 0.5, 0.1, 4, 0, 4, 4, 20, 1, 4));
  w.on_step(sample(1, 0.7, 0.25, 1, 50, 0, 1, 5, 0, 1));
  // Interval 1: nothing starts. Interval 2: one step on replica 0.
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
  // The idle interval reports each replica's state from the gauges.
  CHECK(rows[3] == std::vector<std::string>{"1", "main", "0", "0", "0", "0", "0", "7", "100", "0.07", "0.07", "2",
                                            "2", "1", "1", "0", "0", "0", "0", "0"});
  CHECK(rows[4][0] == "1");
  CHECK(rows[4][3] == "0");
  CHECK(rows[5] == std::vector<std::string>{"2", "main", "0", "1", "0.5", "3", "3", "30", "100", "0.3", "0.3", "0",
                                            "0", "3", "3", "0", "3", "6", "6", "3"});
  // Replica 1 was idle in intervals 1 and 2; replica 0 only in interval 1.
  CHECK(gauge_calls == 3);
}

TEST_CASE("timeseries throughput divides by the interval length and the file starts at the first step", "[metrics][timeseries]") {
  std::ostringstream out;
  TimeseriesWriter w(out, 250'000'000, {"p"}, {1}, {});
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
