#include "sim/metrics/recorder.h"

#include <thread>

#include "sim/core/assert.h"
#include "sim/metrics/metric_group.h"

namespace servesim {

// The run keeps one group per class and per pool; the whole-run group is the merge of the
// class groups, built only at summarize() so each event updates two groups, not three.
struct MetricsRecorder::Impl {
  std::vector<MetricGroup> classes;
  std::vector<MetricGroup> pools;
  std::vector<SloTargets> slos;            // per class; empty: none
  std::vector<double> usd_per_replica_ns;  // per pool; empty: no prices
  // Prefix-cache figures per replica of each pool, grown as replica indexes appear.
  struct ReplicaTokens {
    std::int64_t completed = 0, input_tokens = 0, cached_input_tokens = 0;
  };
  std::vector<std::vector<ReplicaTokens>> replicas;
  // Warm-up: requests left out, per class and per pool, and their outcomes (by Outcome).
  WarmupSpec warmup;
  bool kv_tiers = false;     // set_kv_tiers
  bool lora = false;         // set_lora
  // One class served by one pool (the benchmark's case, and many scenarios'): the class's
  // group would get every record and gap the pool's gets, in the same order, so only the
  // pool's is kept, and the class's holds the records routed to no pool, which add
  // counters alone (no latency, cost or gap: they never ran). class_group() joins the two,
  // exactly: integers, and a merge with empty sketches and zero costs.
  bool class_is_pool = false;
  // The group of class c, as if every record of it had been added to it.
  MetricGroup class_group(std::size_t c) const {
    if (!class_is_pool) return classes[c];
    MetricGroup joined = pools[0];
    joined.merge(classes[0]);
    return joined;
  }
  std::vector<std::int64_t> warmup_by_class, warmup_by_pool;
  Signal<void(const RequestRecord&)> writers;  // add_record_writer's, called where updates are made
  std::int64_t warmup_outcomes[3] = {0, 0, 0};

  // Requests that ended with `outcome`, warm-up included: `count` of every class's group.
  std::int64_t outcome_total(Outcome outcome, std::int64_t MetricGroup::*count) const {
    std::int64_t total = warmup_outcomes[static_cast<int>(outcome)];
    for (const MetricGroup& group : classes) total += group.*count;
    if (class_is_pool) total += pools[0].*count;
    return total;
  }

  // The updates themselves, made in place or by the worker (Updates::apply_to).
  void add_itl(int class_index, int pool_index, Tick gap_ns, std::int64_t count, QuantileSketch::IndexHint* hint);
  void add_itl_gaps(int class_index, int pool_index, const Tick* gaps, std::size_t gap_count,
                    const QuantileSketch::CountRun* runs, std::size_t run_count, QuantileSketch::IndexHint* hint);
  void add_request(const RequestRecord& record, bool warmup, double usd_per_ns);
  void write_record(const RequestRecord& record, bool warmup, double usd_per_ns) {
    if (!writers.empty()) writers(priced(record, warmup, usd_per_ns));
  }
  // A record as the sinks and writers get it: its GPU time's cost, and whether the warm-up
  // covers it.
  static RequestRecord priced(const RequestRecord& record, bool warmup, double usd_per_ns) {
    RequestRecord out = record;
    out.cost_usd = record.acct.gpu.total_ns() * usd_per_ns;
    out.warmup = warmup;
    return out;
  }
};

// Updates recorded but not yet applied, in the order they came: one Op each, the records
// and gaps they carry in their own vectors (taken in order).
struct MetricsRecorder::Updates {
  enum class Kind : std::uint8_t { itl, itl_gaps, request };
  struct Op {
    Kind kind;
    bool warmup;  // request: within the warm-up
    int class_index, pool_index;
    QuantileSketch::IndexHint* hint;  // itl, itl_gaps: the caller's, left to the worker
    Tick gap_ns;                      // itl
    std::int64_t count;               // itl: of the gap; itl_gaps: gaps (the runs: run_count)
    std::int64_t run_count;           // itl_gaps
    double usd_per_ns;                // request
  };
  std::vector<Op> ops;
  std::vector<RequestRecord> records;
  std::vector<Tick> gaps;
  std::vector<QuantileSketch::CountRun> runs;

  // A batch of about this many updates goes to the worker at once: a hand-over every
  // thousand requests or so of a light run (its ~35 steps a request fill `gaps` first).
  // Each hand-over wakes the worker, a futex call of ~9 us under the development machine's
  // hypervisor: a quarter of these sizes took 1.5-2.5% longer over 1M requests (4x the
  // hand-overs), for 3.6 MB less peak memory. One call adds at most kMostGapsPerCall gaps
  // and runs past these.
  static constexpr std::size_t kOps = 2048, kGaps = 32768, kRuns = 8192, kMostGapsPerCall = 4096;
  bool full() const { return ops.size() >= kOps || gaps.size() >= kGaps || runs.size() >= kRuns; }
  // Every vector at the most it can hold, its pages written (OrderedWorker::preallocate):
  // a run's peak memory is then the same however far the worker lags, a long run's that
  // of a short one (tests/reliability/trace_streaming_test.cpp).
  void preallocate() {
    ops.resize(kOps);
    records.resize(kOps);
    gaps.resize(kGaps + kMostGapsPerCall);
    runs.resize(kRuns + kMostGapsPerCall);
    clear();
  }
  bool empty() const { return ops.empty(); }
  void clear() {
    ops.clear();
    records.clear();
    gaps.clear();
    runs.clear();
  }
  void apply_to(Impl& impl) const {
    std::size_t record = 0, gap = 0, run = 0;
    for (const Op& op : ops) {
      switch (op.kind) {
        case Kind::itl:
          impl.add_itl(op.class_index, op.pool_index, op.gap_ns, op.count, op.hint);
          break;
        case Kind::itl_gaps: {
          const auto n = static_cast<std::size_t>(op.count), m = static_cast<std::size_t>(op.run_count);
          impl.add_itl_gaps(op.class_index, op.pool_index, gaps.data() + gap, n, runs.data() + run, m, op.hint);
          gap += n;
          run += m;
          break;
        }
        case Kind::request:
          impl.add_request(records[record], op.warmup, op.usd_per_ns);
          impl.write_record(records[record], op.warmup, op.usd_per_ns);
          ++record;
          break;
      }
    }
  }
};

MetricsRecorder::MetricsRecorder(std::vector<std::string> class_names,
                                 std::vector<std::string> pool_names)
    : class_names_(std::move(class_names)),
      pool_names_(std::move(pool_names)),
      impl_(std::make_unique<Impl>()) {
  impl_->classes.resize(class_names_.size());
  impl_->pools.resize(pool_names_.size());
  impl_->replicas.resize(pool_names_.size());
  impl_->warmup_by_class.assign(class_names_.size(), 0);
  impl_->warmup_by_pool.assign(pool_names_.size(), 0);
  impl_->class_is_pool = class_names_.size() == 1 && pool_names_.size() == 1;
}

MetricsRecorder::~MetricsRecorder() = default;
MetricsRecorder::MetricsRecorder(MetricsRecorder&&) noexcept = default;

void MetricsRecorder::set_worker(Worker use) {
  SS_ASSERT(worker_ == nullptr, "the worker is chosen before it starts");
  worker_use_ = use;
  if (use == Worker::always) defer_updates();
}

void MetricsRecorder::defer_updates() {
  Impl* impl = impl_.get();  // stays put when the recorder is moved
  worker_ = std::make_unique<OrderedWorker<Updates>>([impl](Updates& batch) { batch.apply_to(*impl); });
  worker_->preallocate([](Updates& batch) { batch.preallocate(); });
}

void MetricsRecorder::settle() const {
  if (worker_) worker_->drain();
}

void MetricsRecorder::settle_quietly() noexcept {
  try {
    settle();
  } catch (...) {  // the run is failing already; the worker's own error adds nothing
  }
}

void MetricsRecorder::add_record_writer(Signal<void(const RequestRecord&)>::Slot writer) {
  settle();
  impl_->writers.connect(std::move(writer));
}

QuantileSketch::IndexHint* MetricsRecorder::new_index_hint() { return &index_hints_.emplace_back(); }

MetricsRecorder::Updates& MetricsRecorder::updates() { return worker_->filling(); }

void MetricsRecorder::hand_over_if_full() {
  if (worker_->filling().full()) worker_->hand_over();
}

void MetricsRecorder::set_warmup(const WarmupSpec& warmup) {
  settle();
  impl_->warmup = warmup;
  itl_measured_ = !warmup.any();
}

void MetricsRecorder::start_measuring_itl() { itl_measured_ = true; }

void MetricsRecorder::set_kv_tiers() {
  settle();
  impl_->kv_tiers = true;
}

void MetricsRecorder::set_lora() {
  settle();
  impl_->lora = true;
}

void MetricsRecorder::set_class_slos(std::vector<SloTargets> slos) {
  settle();
  SS_ASSERT(slos.size() == class_names_.size(), "one SLO set per class");
  impl_->slos = std::move(slos);
}

void MetricsRecorder::set_pool_replica_counts(const std::vector<int>& replicas) {
  settle();
  SS_ASSERT(replicas.size() == pool_names_.size(), "one replica count per pool");
  for (std::size_t p = 0; p < replicas.size(); ++p)
    if (impl_->replicas[p].size() < static_cast<std::size_t>(replicas[p]))
      impl_->replicas[p].resize(static_cast<std::size_t>(replicas[p]));
}

void MetricsRecorder::set_pool_prices(std::vector<double> usd_per_replica_ns) {
  settle();
  SS_ASSERT(usd_per_replica_ns.size() == pool_names_.size(), "one price per pool");
  impl_->usd_per_replica_ns = std::move(usd_per_replica_ns);
}

void MetricsRecorder::record_itl(int class_index, int pool_index, Tick gap_ns, std::int64_t count,
                                 QuantileSketch::IndexHint* hint) {
  SS_ASSERT(class_index >= 0 && class_index < static_cast<int>(class_names_.size()), "ITL of an unknown class");
  SS_ASSERT(pool_index >= 0 && pool_index < static_cast<int>(pool_names_.size()), "ITL of an unknown pool");
  SS_ASSERT(gap_ns >= 0, "inter-token gaps cannot be negative");
  if (!itl_measured_) return;  // ended within the warm-up
  if (!worker_) return impl_->add_itl(class_index, pool_index, gap_ns, count, hint);
  updates().ops.push_back({Updates::Kind::itl, false, class_index, pool_index, hint, gap_ns, count, 0, 0.0});
  hand_over_if_full();
}

void MetricsRecorder::Impl::add_itl(int class_index, int pool_index, Tick gap_ns, std::int64_t count,
                                    QuantileSketch::IndexHint* hint) {
  const double gap = static_cast<double>(gap_ns);
  QuantileSketch& pool = pools[static_cast<std::size_t>(pool_index)].itl_ns;
  if (class_is_pool) {
    int index = QuantileSketch::kUnknownIndex;
    pool.add_with_index(gap, count, index, hint);
    return;
  }
  QuantileSketch::add_to_both(classes[static_cast<std::size_t>(class_index)].itl_ns, pool, gap, count, hint);
}

void MetricsRecorder::record_itl_gaps(int class_index, int pool_index, std::span<const Tick> gaps,
                                      const std::vector<QuantileSketch::CountRun>& runs,
                                      QuantileSketch::IndexHint* hint) {
  SS_ASSERT(class_index >= 0 && class_index < static_cast<int>(class_names_.size()), "ITL of an unknown class");
  SS_ASSERT(pool_index >= 0 && pool_index < static_cast<int>(pool_names_.size()), "ITL of an unknown pool");
  if (!itl_measured_) return;  // ended within the warm-up
  SS_ASSERT(gaps.size() < Updates::kMostGapsPerCall && runs.size() < Updates::kMostGapsPerCall,
            "too many gaps in one call");
  if (!worker_)
    return impl_->add_itl_gaps(class_index, pool_index, gaps.data(), gaps.size(), runs.data(), runs.size(), hint);
  Updates& batch = updates();
  batch.ops.push_back({Updates::Kind::itl_gaps, false, class_index, pool_index, hint, 0,
                       static_cast<std::int64_t>(gaps.size()), static_cast<std::int64_t>(runs.size()), 0.0});
  batch.gaps.insert(batch.gaps.end(), gaps.begin(), gaps.end());
  batch.runs.insert(batch.runs.end(), runs.begin(), runs.end());
  hand_over_if_full();
}

void MetricsRecorder::Impl::add_itl_gaps(int class_index, int pool_index, const Tick* gaps, std::size_t gap_count,
                                         const QuantileSketch::CountRun* runs, std::size_t run_count,
                                         QuantileSketch::IndexHint* hint) {
  QuantileSketch& pool = pools[static_cast<std::size_t>(pool_index)].itl_ns;
  if (class_is_pool) {
    QuantileSketch::add_all_to(pool, nullptr, gaps, gap_count, runs, run_count, hint);
    return;
  }
  QuantileSketch::add_all_to_both(classes[static_cast<std::size_t>(class_index)].itl_ns, pool, gaps, gap_count, runs,
                                  run_count, hint);
}

void MetricsRecorder::record_request(const RequestRecord& record) {
  SS_ASSERT(record.class_index >= 0 && record.class_index < static_cast<int>(class_names_.size()),
            "request of an unknown class");
  SS_ASSERT(record.pool_index >= -1 && record.pool_index < static_cast<int>(pool_names_.size()),
            "request of an unknown pool");
  // Prices, SLOs and the warm-up are set before the run and only read during it: this
  // thread and the worker may both read them.
  double usd_per_ns = 0;
  if (record.pool_index >= 0 && !impl_->usd_per_replica_ns.empty())
    usd_per_ns = impl_->usd_per_replica_ns[static_cast<std::size_t>(record.pool_index)];
  const bool warmup = impl_->warmup.covers(record.id, record.arrival_ns);
  const bool in_place = worker_ == nullptr;
  if (in_place) {
    impl_->add_request(record, warmup, usd_per_ns);
  } else {
    Updates& batch = updates();
    batch.ops.push_back({Updates::Kind::request, warmup, 0, 0, nullptr, 0, 0, 0, usd_per_ns});
    batch.records.push_back(record);
    hand_over_if_full();
  }
  if (sustained_) sustained_->add(record);  // warm-up ones too: they are load all the same
  // requests.csv lists every request, warm-up ones too.
  if (!sink_.empty()) sink_(Impl::priced(record, warmup, usd_per_ns));
  if (in_place) {
    impl_->write_record(record, warmup, usd_per_ns);  // else the worker does, in order
    if (++requests_recorded_ == kRequestsInPlace && worker_use_ == Worker::for_long_runs &&
        std::thread::hardware_concurrency() > 1)
      defer_updates();
  }
}

void MetricsRecorder::Impl::add_request(const RequestRecord& record, bool in_warmup, double usd_per_ns) {
  const auto c = static_cast<std::size_t>(record.class_index);
  if (in_warmup) {
    ++warmup_by_class[c];
    if (record.pool_index >= 0) ++warmup_by_pool[static_cast<std::size_t>(record.pool_index)];
    ++warmup_outcomes[static_cast<int>(record.outcome)];
    return;
  }
  const SloTargets slo = slos.empty() ? SloTargets{} : slos[c];
  MetricGroup::LatencyBuckets buckets;  // found once for both groups
  if (record.pool_index >= 0) {
    const auto p = static_cast<std::size_t>(record.pool_index);
    pools[p].add_request(record, usd_per_ns, slo, buckets);
    if (record.replica_index >= 0 && record.outcome == Outcome::completed) {
      auto& pool_replicas = replicas[p];
      const auto r = static_cast<std::size_t>(record.replica_index);
      if (pool_replicas.size() <= r) pool_replicas.resize(r + 1);
      pool_replicas[r].completed += 1;
      pool_replicas[r].input_tokens += record.prompt_tokens;
      pool_replicas[r].cached_input_tokens += record.cached_prompt_tokens;
    }
  }
  if (!(class_is_pool && record.pool_index >= 0)) {
    SS_ASSERT(!class_is_pool || record.outcome != Outcome::completed, "a completed request ran in a pool");
    classes[c].add_request(record, usd_per_ns, slo, buckets);
  }
}

RunSummary MetricsRecorder::summarize(Tick duration_ns) const {
  SS_ASSERT(duration_ns >= 0, "a run cannot last a negative time");
  settle();
  std::vector<MetricGroup> classes;
  for (std::size_t i = 0; i < class_names_.size(); ++i) classes.push_back(impl_->class_group(i));
  MetricGroup overall;
  for (const MetricGroup& group : classes) overall.merge(group);

  // Written only with a warm-up, so summaries of runs without one keep their fields.
  const bool warmup = impl_->warmup.any();
  RunSummary summary;
  summary.overall = overall.to_block(duration_ns);
  if (warmup) summary.overall.set_count("warmup_excluded", warmup_excluded());
  // Written only with KV tiers, so summaries of runs without them keep their fields.
  if (impl_->kv_tiers) overall.add_kv_tier_fields(summary.overall);
  if (impl_->lora) overall.add_lora_fields(summary.overall);
  for (std::size_t i = 0; i < class_names_.size(); ++i) {
    summary.classes.emplace_back(class_names_[i], classes[i].to_block(duration_ns));
    if (warmup) summary.classes.back().second.set_count("warmup_excluded", impl_->warmup_by_class[i]);
    if (impl_->kv_tiers) classes[i].add_kv_tier_fields(summary.classes.back().second);
    if (impl_->lora) classes[i].add_lora_fields(summary.classes.back().second);
  }
  for (std::size_t i = 0; i < pool_names_.size(); ++i) {
    SummaryBlock block = impl_->pools[i].to_block(duration_ns);
    if (warmup) block.set_count("warmup_excluded", impl_->warmup_by_pool[i]);
    if (impl_->kv_tiers) impl_->pools[i].add_kv_tier_fields(block);
    if (impl_->lora) impl_->pools[i].add_lora_fields(block);
    const auto& replicas = impl_->replicas[i];
    for (std::size_t r = 0; r < replicas.size(); ++r) {
      FieldGroup item{"", {}, {}};
      item.set_count("replica", static_cast<std::int64_t>(r));
      item.set_count("completed", replicas[r].completed);
      item.set_count("total_input_tokens", replicas[r].input_tokens);
      item.set_count("cached_input_tokens", replicas[r].cached_input_tokens);
      item.set("prefix_cache_hit_rate", replicas[r].input_tokens > 0
                                            ? static_cast<double>(replicas[r].cached_input_tokens) /
                                                  static_cast<double>(replicas[r].input_tokens)
                                            : 0.0);
      block.replicas.push_back(std::move(item));
    }
    summary.pools.emplace_back(pool_names_[i], std::move(block));
  }
  return summary;
}

std::int64_t MetricsRecorder::completed() const {
  settle();
  return impl_->outcome_total(Outcome::completed, &MetricGroup::completed);
}

std::int64_t MetricsRecorder::rejected() const {
  settle();
  return impl_->outcome_total(Outcome::rejected, &MetricGroup::rejected);
}

std::int64_t MetricsRecorder::unfinished() const {
  settle();
  return impl_->outcome_total(Outcome::unfinished, &MetricGroup::unfinished);
}

std::int64_t MetricsRecorder::warmup_excluded() const {
  settle();
  std::int64_t total = 0;
  for (std::int64_t n : impl_->warmup_by_class) total += n;
  return total;
}

}  // namespace servesim
