#include "sim/metrics/timeseries.h"

#include <algorithm>
#include <ostream>

#include "sim/core/assert.h"

namespace servesim {
namespace {

// Printed with enough digits to be exact for integers below 10^12 and for the times a run
// reaches; the same value always prints the same text, so the file is deterministic.
void put(std::ostream& out, double v, int digits) {
  const auto old = out.precision(digits);
  out << v;
  out.precision(old);
}

// RFC 4180: a name holding a comma, quote or line break is quoted, quotes doubled.
std::string csv_quoted(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

TimeseriesWriter::TimeseriesWriter(std::ostream& out, Tick interval_ns, std::vector<std::string> pool_names,
                                   std::vector<int> replicas_per_pool, bool fleet_columns,
                                   std::vector<double> idle_w_per_replica)
    : out_(out),
      interval_ns_(interval_ns),
      pool_names_(std::move(pool_names)),
      fleet_columns_(fleet_columns),
      idle_w_per_replica_(std::move(idle_w_per_replica)) {
  SS_ASSERT(interval_ns_ > 0, "timeseries interval must be positive");
  SS_ASSERT(pool_names_.size() == replicas_per_pool.size(), "one replica count per pool");
  for (int p = 0; p < static_cast<int>(replicas_per_pool.size()); ++p) {
    first_flat_.push_back(static_cast<int>(replicas_.size()));
    for (int r = 0; r < replicas_per_pool[static_cast<std::size_t>(p)]; ++r) replicas_.emplace_back(p, r);
  }
  for (auto& name : pool_names_) name = csv_quoted(name);
  buckets_.assign(replicas_.size(), Bucket{});
  held_.assign(replicas_.size(), Held{});
  for (const int n : replicas_per_pool) fleet_.emplace_back(n, n);
  SS_ASSERT(idle_w_per_replica_.empty() || idle_w_per_replica_.size() == pool_names_.size(), "one idle power per pool");
  on_since_ns_.assign(replicas_.size(), 0);
  out_ << kHeader << (fleet_columns_ ? kFleetColumns : "") << (idle_w_per_replica_.empty() ? "" : kPowerColumns)
       << "\n";
}

void TimeseriesWriter::on_fleet(int pool, Tick now_ns, int active, int paid) {
  if (current_ >= 0) advance_to(now_ns / interval_ns_);  // earlier intervals end with the old fleet
  fleet_[static_cast<std::size_t>(pool)] = {active, paid};
}

void TimeseriesWriter::on_power(int pool, int replica, Tick now_ns, bool on) {
  if (current_ >= 0) advance_to(now_ns / interval_ns_);
  const auto flat = static_cast<std::size_t>(first_flat_[static_cast<std::size_t>(pool)] + replica);
  Tick& since = on_since_ns_[flat];
  if (on == (since >= 0)) return;
  if (on) {
    since = now_ns;
  } else {
    // Only the open interval's part counts (earlier intervals were closed with it).
    const Tick from = current_ >= 0 ? std::max(since, current_ * interval_ns_) : now_ns;
    buckets_[flat].on_ns += std::max<Tick>(0, now_ns - from);
    since = -1;
  }
}

void TimeseriesWriter::advance_to(std::int64_t interval) {
  SS_ASSERT(interval >= current_, "timeseries samples must come in time order");
  // Close the open interval and every one the whole cluster sat through without a step,
  // so each replica has one row per interval from the first step to the last.
  while (current_ < interval) write_interval(current_++);
}

void TimeseriesWriter::change_state(std::size_t flat, Tick now_ns, const ReplicaGauges& g) {
  Held& h = held_[flat];
  SS_ASSERT(now_ns >= h.since_ns, "timeseries samples must come in time order");
  if (current_ >= 0 && now_ns > std::max(h.since_ns, current_ * interval_ns_)) {
    Bucket& b = buckets_[flat];
    b.held_waiting_max = std::max(b.held_waiting_max, h.g.waiting);
    b.held_running_max = std::max(b.held_running_max, h.g.running);
    b.held_kv_max = std::max(b.held_kv_max, h.g.kv_used_blocks);
  }
  h.g = g;
  h.since_ns = now_ns;
}

void TimeseriesWriter::on_gauges(int pool, int replica, Tick now_ns, const ReplicaGauges& g) {
  if (current_ >= 0) advance_to(now_ns / interval_ns_);
  change_state(static_cast<std::size_t>(first_flat_[static_cast<std::size_t>(pool)] + replica), now_ns, g);
}

void TimeseriesWriter::on_step(const StepSample& s) {
  const std::int64_t interval = s.start_ns / interval_ns_;
  if (current_ < 0) current_ = interval;  // the file starts at the first step, not at t = 0
  advance_to(interval);

  const auto flat = static_cast<std::size_t>(first_flat_[static_cast<std::size_t>(s.pool)] + s.replica);
  change_state(flat, s.start_ns, ReplicaGauges{s.kv_used_blocks, s.kv_total_blocks, s.waiting, s.running});
  Bucket& b = buckets_[flat];
  b.steps += 1;
  b.busy_ns += s.duration_ns;
  b.batch_sum += s.batch;
  b.batch_max = std::max(b.batch_max, s.batch);
  b.kv_used_max = std::max(b.kv_used_max, s.kv_used_blocks);
  b.kv_total = s.kv_total_blocks;
  const double occupancy =
      s.kv_total_blocks > 0 ? static_cast<double>(s.kv_used_blocks) / static_cast<double>(s.kv_total_blocks) : 0.0;
  b.occupancy_sum += occupancy;
  b.occupancy_max = std::max(b.occupancy_max, occupancy);
  b.waiting_sum += s.waiting;
  b.waiting_max = std::max(b.waiting_max, s.waiting);
  b.running_sum += s.running;
  b.running_max = std::max(b.running_max, s.running);
  b.prefill_tokens += s.prefill_tokens;
  b.decode_tokens += s.decode_tokens;
  b.output_tokens += s.output_tokens;
  b.above_idle_j += s.above_idle_j;
}

void TimeseriesWriter::finish() {
  if (current_ >= 0) write_interval(current_++);
  out_.flush();
}

void TimeseriesWriter::write_interval(std::int64_t interval) {
  const double interval_s = static_cast<double>(interval_ns_) * 1e-9;
  for (std::size_t i = 0; i < replicas_.size(); ++i) {
    Bucket& b = buckets_[i];
    const ReplicaGauges& now = held_[i].g;  // held since before the interval's end, until it
    const auto [pool, replica] = replicas_[i];
    // Means are over the steps that started in the interval. A replica that started none
    // reports its state at the interval's end, and the most it held during the interval
    // (docs/metrics.md). Waiting counts every moment, steps or not: requests queue between
    // steps, and a step's post-scheduling count misses them.
    const std::int64_t waiting_max = std::max({b.waiting_max, b.held_waiting_max, now.waiting});
    double batch_mean = 0, occ_mean = 0, occ_max = 0, waiting_mean = 0, running_mean = 0;
    std::int64_t kv_used_max = 0, kv_total = 0, running_max = 0;
    if (b.steps > 0) {
      const double n = static_cast<double>(b.steps);
      batch_mean = static_cast<double>(b.batch_sum) / n;
      occ_mean = b.occupancy_sum / n;
      occ_max = b.occupancy_max;
      waiting_mean = static_cast<double>(b.waiting_sum) / n;
      running_mean = static_cast<double>(b.running_sum) / n;
      kv_used_max = b.kv_used_max;
      kv_total = b.kv_total;
      running_max = b.running_max;
    } else {
      kv_used_max = std::max(b.held_kv_max, now.kv_used_blocks);
      kv_total = now.kv_total_blocks;
      const auto fraction = [&](std::int64_t blocks) {
        return kv_total > 0 ? static_cast<double>(blocks) / static_cast<double>(kv_total) : 0.0;
      };
      occ_mean = fraction(now.kv_used_blocks);
      occ_max = fraction(kv_used_max);
      waiting_mean = static_cast<double>(now.waiting);
      running_mean = static_cast<double>(now.running);
      running_max = std::max(b.held_running_max, now.running);
    }
    put(out_, static_cast<double>(interval) * interval_s, 12);
    out_ << ',' << pool_names_[static_cast<std::size_t>(pool)] << ',' << replica << ',' << b.steps << ',';
    put(out_, static_cast<double>(b.busy_ns) * 1e-9, 12);
    out_ << ',';
    put(out_, batch_mean, 6);
    out_ << ',' << b.batch_max << ',' << kv_used_max << ',' << kv_total << ',';
    put(out_, occ_mean, 6);
    out_ << ',';
    put(out_, occ_max, 6);
    out_ << ',';
    put(out_, waiting_mean, 6);
    out_ << ',' << waiting_max << ',';
    put(out_, running_mean, 6);
    out_ << ',' << running_max << ',' << b.prefill_tokens << ',' << b.decode_tokens << ',' << b.output_tokens << ',';
    put(out_, static_cast<double>(b.output_tokens) / interval_s, 9);
    out_ << ',';
    put(out_, static_cast<double>(b.prefill_tokens + b.decode_tokens) / interval_s, 9);
    if (fleet_columns_) {
      const auto [active, paid] = fleet_[static_cast<std::size_t>(pool)];
      out_ << ',' << active << ',' << paid;
    }
    if (!idle_w_per_replica_.empty()) {
      // Time on: what on_power counted, plus the stretch still on up to the interval's end.
      const Tick start_ns = interval * interval_ns_;
      Tick on_ns = b.on_ns;
      if (on_since_ns_[i] >= 0) on_ns += std::max<Tick>(0, start_ns + interval_ns_ - std::max(on_since_ns_[i], start_ns));
      const double on_s = static_cast<double>(on_ns) * 1e-9;
      out_ << ',';
      put(out_, (idle_w_per_replica_[static_cast<std::size_t>(pool)] * on_s + b.above_idle_j) / interval_s, 9);
    }
    out_ << '\n';
    ++rows_;
    b = Bucket{};
  }
}

}  // namespace servesim
