#pragma once
// Streaming metrics of a run: per-class and per-pool latency sketches and token counters.
// Memory does not grow with the number of requests or tokens.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/core/ordered_worker.h"
#include "sim/core/signal.h"
#include "sim/metrics/quantile_sketch.h"
#include "sim/metrics/request_record.h"
#include "sim/metrics/slo.h"
#include "sim/metrics/summary.h"
#include "sim/metrics/sustained_rate.h"
#include "sim/metrics/warmup.h"

namespace servesim {

class MetricsRecorder {
 public:
  MetricsRecorder(std::vector<std::string> class_names, std::vector<std::string> pool_names);
  ~MetricsRecorder();
  MetricsRecorder(MetricsRecorder&&) noexcept;
  MetricsRecorder& operator=(MetricsRecorder&&) = delete;

  // Where the sketches and counters of the summary are updated: in the caller's thread, or
  // on a worker thread (sim/core/ordered_worker.h) in the same order, so that a long run's
  // simulation goes on while another core does its metrics. The summary is the same bit
  // for bit either way. `for_long_runs` (the default) starts the worker once a run has
  // recorded kRequestsInPlace requests, on a machine with more than one hardware thread.
  enum class Worker { never, for_long_runs, always };
  void set_worker(Worker use);
  static constexpr std::int64_t kRequestsInPlace = 4096;

  // One inter-token gap of a request of this class on this pool (second token onwards);
  // `count` equal gaps at once when one step emits a token to many sequences.
  // REQUIRES: valid class and pool indexes, gap_ns >= 0, count >= 0.
  // `hint`: the caller's bucket hint (QuantileSketch::IndexHint), kept between its calls;
  // with a worker it is used after the call, so take it from new_index_hint().
  void record_itl(int class_index, int pool_index, Tick gap_ns, std::int64_t count = 1,
                  QuantileSketch::IndexHint* hint = nullptr);
  // record_itl(class, pool, g, count, hint) for each gap g of `gaps`, with the counts of
  // `runs` (QuantileSketch::add_all_to_both), at once.
  void record_itl_gaps(int class_index, int pool_index, std::span<const Tick> gaps,
                       const std::vector<QuantileSketch::CountRun>& runs, QuantileSketch::IndexHint* hint = nullptr);
  // A bucket hint for one source of gaps (a replica), that lives as long as the recorder.
  QuantileSketch::IndexHint* new_index_hint();
  // Called exactly once per request, whatever its outcome. Latency sketches and token
  // counters take completed requests only; rejected and unfinished ones are counted apart.
  // A request with pool_index -1 (never routed) counts in its class and overall only.
  void record_request(const RequestRecord& record);
  // Optional: some pool keeps KV tiers below HBM; summaries then report hits per tier.
  void set_kv_tiers();
  // Some pool serves LoRA adapters: the TTFT attribution gets lora_load_ms.
  void set_lora();
  // Optional, before the first request: each class's SLOs (goodput), in class order.
  void set_class_slos(std::vector<SloTargets> slos);
  // Optional, before the first request: what one ns of one replica of each pool costs in
  // USD (price per GPU-hour x GPUs per replica / 3.6e12), in pool order. Without it every
  // cost figure is 0.
  void set_pool_prices(std::vector<double> usd_per_replica_ns);
  // Optional: replicas per pool, so the per-replica figures list every replica.
  void set_pool_replica_counts(const std::vector<int>& replicas);
  // Optional, before the first request: the warm-up (warmup.h). Records of requests it
  // covers (by RequestRecord::id, the arrival index, and arrival_ns) go to the request sink
  // and to the counts below but into no figure of the summary; each block then carries
  // `warmup_excluded`, how many it left out. Inter-token gaps are dropped until
  // start_measuring_itl().
  void set_warmup(const WarmupSpec& warmup);
  // The first request after the warm-up has arrived: inter-token gaps count from now on.
  // The caller first hands over every gap that ended before (Replica::catch_up), so the
  // gaps kept are exactly those that end from this moment on.
  void start_measuring_itl();
  // Every record is also passed to these, priced and marked warm-up or not, in this
  // thread as it is recorded (the invariant checker reads them; a run's progress counts them).
  void add_request_sink(Signal<void(const RequestRecord&)>::Slot sink) { sink_.connect(std::move(sink)); }
  // The same records, priced and marked, in the same order, for a sink that only writes
  // them out (requests.csv): once the worker has started it gets them on the worker's
  // thread, some time after record_request, after every add_request_sink sink. So it
  // must touch nothing the run reads or changes, and what it writes to must outlive the
  // recorder's last update (summarize and the outcome counts settle them; so does
  // settle_quietly, for a run that ends by an exception).
  void add_record_writer(Signal<void(const RequestRecord&)>::Slot writer);
  // Applies every update made so far, the writers' included, and drops any error the
  // worker met: for a run unwinding from an exception of its own.
  void settle_quietly() noexcept;
  // Optional: every record is also counted here (the run's saturation judgement).
  void set_sustained_meter(SustainedRateMeter* meter) { sustained_ = meter; }

  // The whole-run summary (fields and their order: docs/metrics.md). `duration_ns` is the
  // simulated span the throughputs divide by; throughputs are 0 when it is 0.
  RunSummary summarize(Tick duration_ns) const;

  // Outcomes of every request recorded, warm-up ones included (so arrivals add up).
  std::int64_t completed() const;
  std::int64_t rejected() const;
  std::int64_t unfinished() const;
  // Requests the warm-up left out of the summary.
  std::int64_t warmup_excluded() const;

 private:
  struct Impl;
  struct Updates;
  // Updates go to the worker's batch from now on (Worker and kRequestsInPlace).
  void defer_updates();
  // Every update made so far applied (the worker's batches drained): Impl may be read.
  void settle() const;
  // The batch being filled, handed over when full enough.
  Updates& updates();
  void hand_over_if_full();

  std::vector<std::string> class_names_;
  std::vector<std::string> pool_names_;
  Signal<void(const RequestRecord&)> sink_;
  SustainedRateMeter* sustained_ = nullptr;
  std::unique_ptr<Impl> impl_;
  // Read and changed by the caller's thread alone.
  Worker worker_use_ = Worker::for_long_runs;
  std::int64_t requests_recorded_ = 0;
  bool itl_measured_ = true;  // false from set_warmup until start_measuring_itl
  // new_index_hint's: a deque never moves its elements, so the worker may use one while
  // another is added.
  std::deque<QuantileSketch::IndexHint> index_hints_;
  // Declared after impl_, so destroyed first: its last batches are applied to a live Impl.
  std::unique_ptr<OrderedWorker<Updates>> worker_;  // null while updates are made in place
};

}  // namespace servesim
