#pragma once
// timeseries.csv (docs/metrics.md): per replica and per interval of simulated time, what
// its engine steps did — batch size, KV-cache occupancy, queue lengths, tokens computed
// and throughput. Fed one sample per engine step (never per token) and written as the run
// goes: only the current interval's accumulators are held, one per replica, so memory
// does not grow with the run's length. Knows nothing of the engine: the cluster layer
// turns a step into a StepSample and every other change of a replica's queue and KV cache
// into ReplicaGauges (sim/cluster/step_sampler.h), so the writer knows each replica's
// state at every moment: what it held between steps, and how many requests waited.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace servesim {

// One engine step of one replica, as seen when it starts.
struct StepSample {
  int pool = 0;
  int replica = 0;          // index inside its pool
  Tick start_ns = 0;
  Tick duration_ns = 0;
  std::int64_t batch = 0;           // requests computing tokens this step
  std::int64_t prefill_tokens = 0;  // prompt (and recompute) tokens computed
  std::int64_t decode_tokens = 0;   // one per decoding request
  std::int64_t output_tokens = 0;   // tokens emitted at the step's end (speculation included)
  std::int64_t kv_used_blocks = 0;  // after this step's allocations
  std::int64_t kv_total_blocks = 0;
  std::int64_t waiting = 0;         // queue length after scheduling
  std::int64_t running = 0;
  // With cluster.energy: the step's energy above idle, all the replica's GPUs (docs/energy.md).
  double above_idle_j = 0;
};

// A replica's queue and KV state from some moment on (until the next sample or step).
struct ReplicaGauges {
  std::int64_t kv_used_blocks = 0;
  std::int64_t kv_total_blocks = 0;
  std::int64_t waiting = 0;
  std::int64_t running = 0;
};

class TimeseriesWriter {
 public:
  static constexpr const char* kHeader =
      "time_s,pool,replica,steps,busy_s,batch_mean,batch_max,kv_used_blocks_max,kv_total_blocks,"
      "kv_occupancy_mean,kv_occupancy_max,waiting_mean,waiting_max,running_mean,running_max,"
      "prefill_tokens,decode_tokens,output_tokens,output_tokens_per_s,tokens_per_s";

  // Appended to kHeader with fleet columns: the replica's pool's replicas active and paid.
  static constexpr const char* kFleetColumns = ",active_replicas,paid_replicas";
  // Appended last with power columns (runs with cluster.energy): the replica's mean power
  // over the interval, all its GPUs; a pool's power is the sum of its replicas' rows.
  static constexpr const char* kPowerColumns = ",power_w";

  // `replicas_per_pool[p]` replicas in pool p named pool_names[p]. Writes the header.
  // With `fleet_columns` (runs where some pool autoscales; other files keep their columns)
  // every row ends with its pool's replicas active and paid at the interval's end:
  // all of the pool's replicas until on_fleet() says otherwise.
  // REQUIRES: interval_ns > 0; `out` outlives the writer.
  // With `idle_w_per_replica` (one per pool: a replica's GPUs' idle power; runs with
  // cluster.energy) every row ends with power_w: idle power while the replica is on (every
  // replica from t = 0 until on_power() says otherwise) plus the energy above idle of the
  // steps that started in the interval, over the interval.
  TimeseriesWriter(std::ostream& out, Tick interval_ns, std::vector<std::string> pool_names,
                   std::vector<int> replicas_per_pool, bool fleet_columns = false,
                   std::vector<double> idle_w_per_replica = {});

  // A step starts; the replica's state is the sample's from then on.
  // REQUIRES: samples and gauges come in non-decreasing time (simulated time order).
  void on_step(const StepSample& s);
  // The replica's state changed at `now_ns` other than at a step's start (a request queued
  // or withdrawn, a step ended). Before the first step it only sets the state (the file
  // starts at the first step). Replicas no gauge was given for start empty, with 0 blocks.
  void on_gauges(int pool, int replica, Tick now_ns, const ReplicaGauges& g);
  // From `now_ns` on, pool `pool` has `active` replicas routable and `paid` paid (fleet
  // columns only). REQUIRES: time order with the samples and gauges.
  void on_fleet(int pool, Tick now_ns, int active, int paid);
  // From `now_ns` on, the replica draws power (on) or not (power columns only).
  void on_power(int pool, int replica, Tick now_ns, bool on);
  // Writes the interval still open. Call once, after the run.
  void finish();

  std::int64_t rows_written() const { return rows_; }

 private:
  struct Bucket {
    std::int64_t steps = 0;
    Tick busy_ns = 0;
    std::int64_t batch_sum = 0, batch_max = 0;
    std::int64_t kv_used_max = 0, kv_total = 0;
    double occupancy_sum = 0, occupancy_max = 0;
    std::int64_t waiting_sum = 0, waiting_max = 0;
    std::int64_t running_sum = 0, running_max = 0;
    std::int64_t prefill_tokens = 0, decode_tokens = 0, output_tokens = 0;
    // Most waiting, running and KV blocks held for some time within the interval (a
    // state that lasted 0 ns, such as an arrival scheduled the same nanosecond, is none).
    std::int64_t held_waiting_max = 0, held_running_max = 0, held_kv_max = 0;
    double above_idle_j = 0;  // steps started in the interval
    Tick on_ns = 0;           // time on within the interval, counted up to on_since_ns
  };
  // A replica's state since `since_ns`.
  struct Held {
    ReplicaGauges g;
    Tick since_ns = 0;
  };
  // Closes the open interval and every one before `interval`.
  void advance_to(std::int64_t interval);
  // The replica's state changes at `now_ns` to `g`: the state it leaves counts in the
  // interval's maxima if it lasted some time within it.
  void change_state(std::size_t flat, Tick now_ns, const ReplicaGauges& g);
  void write_interval(std::int64_t interval);  // every replica's row, then resets them

  std::ostream& out_;
  Tick interval_ns_;
  std::vector<std::string> pool_names_;
  std::vector<std::pair<int, int>> replicas_;  // flat index -> (pool, replica)
  std::vector<int> first_flat_;                 // pool -> flat index of its replica 0
  std::vector<Bucket> buckets_;
  std::vector<Held> held_;  // per replica (flat index)
  bool fleet_columns_ = false;
  std::vector<std::pair<int, int>> fleet_;  // per pool: (active, paid) now
  std::vector<double> idle_w_per_replica_;  // per pool; empty: no power columns
  std::vector<Tick> on_since_ns_;           // per replica (flat): on since; -1 while off
  std::int64_t current_ = -1;  // interval being filled; -1 before the first step
  std::int64_t rows_ = 0;
};

}  // namespace servesim
