#include "sim/metrics/recorder.h"

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
  bool itl_measured = true;  // false from set_warmup until start_measuring_itl
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
  std::int64_t warmup_outcomes[3] = {0, 0, 0};

  // Requests that ended with `outcome`, warm-up included: `count` of every class's group.
  std::int64_t outcome_total(Outcome outcome, std::int64_t MetricGroup::*count) const {
    std::int64_t total = warmup_outcomes[static_cast<int>(outcome)];
    for (const MetricGroup& group : classes) total += group.*count;
    if (class_is_pool) total += pools[0].*count;
    return total;
  }
};

MetricsRecorder::MetricsRecorder(std::vector<std::string> class_names,
                                 std::vector<std::string> pool_names)
    : class_names_(std::move(class_names)),
      pool_names_(std::move(pool_names)),
      impl_(std::make_shared<Impl>()) {
  impl_->classes.resize(class_names_.size());
  impl_->pools.resize(pool_names_.size());
  impl_->replicas.resize(pool_names_.size());
  impl_->warmup_by_class.assign(class_names_.size(), 0);
  impl_->warmup_by_pool.assign(pool_names_.size(), 0);
  impl_->class_is_pool = class_names_.size() == 1 && pool_names_.size() == 1;
}

void MetricsRecorder::set_warmup(const WarmupSpec& warmup) {
  impl_->warmup = warmup;
  impl_->itl_measured = !warmup.any();
}

void MetricsRecorder::start_measuring_itl() { impl_->itl_measured = true; }

void MetricsRecorder::set_kv_tiers() { impl_->kv_tiers = true; }

void MetricsRecorder::set_lora() { impl_->lora = true; }

void MetricsRecorder::set_class_slos(std::vector<SloTargets> slos) {
  SS_ASSERT(slos.size() == class_names_.size(), "one SLO set per class");
  impl_->slos = std::move(slos);
}

void MetricsRecorder::set_pool_replica_counts(const std::vector<int>& replicas) {
  SS_ASSERT(replicas.size() == pool_names_.size(), "one replica count per pool");
  for (std::size_t p = 0; p < replicas.size(); ++p)
    if (impl_->replicas[p].size() < static_cast<std::size_t>(replicas[p]))
      impl_->replicas[p].resize(static_cast<std::size_t>(replicas[p]));
}

void MetricsRecorder::set_pool_prices(std::vector<double> usd_per_replica_ns) {
  SS_ASSERT(usd_per_replica_ns.size() == pool_names_.size(), "one price per pool");
  impl_->usd_per_replica_ns = std::move(usd_per_replica_ns);
}

void MetricsRecorder::record_itl(int class_index, int pool_index, Tick gap_ns, std::int64_t count,
                                 QuantileSketch::IndexHint* hint) {
  SS_ASSERT(class_index >= 0 && class_index < static_cast<int>(impl_->classes.size()),
            "ITL of an unknown class");
  SS_ASSERT(pool_index >= 0 && pool_index < static_cast<int>(impl_->pools.size()),
            "ITL of an unknown pool");
  SS_ASSERT(gap_ns >= 0, "inter-token gaps cannot be negative");
  if (!impl_->itl_measured) return;  // ended within the warm-up
  const double gap = static_cast<double>(gap_ns);
  QuantileSketch& pool = impl_->pools[static_cast<std::size_t>(pool_index)].itl_ns;
  if (impl_->class_is_pool) {
    int index = QuantileSketch::kUnknownIndex;
    pool.add_with_index(gap, count, index, hint);
    return;
  }
  QuantileSketch::add_to_both(impl_->classes[static_cast<std::size_t>(class_index)].itl_ns, pool, gap, count, hint);
}

void MetricsRecorder::record_itl_gaps(int class_index, int pool_index, const std::vector<Tick>& gaps,
                                      const std::vector<QuantileSketch::CountRun>& runs,
                                      QuantileSketch::IndexHint* hint) {
  SS_ASSERT(class_index >= 0 && class_index < static_cast<int>(impl_->classes.size()), "ITL of an unknown class");
  SS_ASSERT(pool_index >= 0 && pool_index < static_cast<int>(impl_->pools.size()), "ITL of an unknown pool");
  if (!impl_->itl_measured) return;  // ended within the warm-up
  QuantileSketch& pool = impl_->pools[static_cast<std::size_t>(pool_index)].itl_ns;
  if (impl_->class_is_pool) {
    QuantileSketch::add_all_to(pool, nullptr, gaps.data(), gaps.size(), runs.data(), runs.size(), hint);
    return;
  }
  QuantileSketch::add_all_to_both(impl_->classes[static_cast<std::size_t>(class_index)].itl_ns, pool, gaps.data(),
                                  gaps.size(), runs.data(), runs.size(), hint);
}

void MetricsRecorder::record_request(const RequestRecord& record) {
  SS_ASSERT(record.class_index >= 0 &&
                record.class_index < static_cast<int>(impl_->classes.size()),
            "request of an unknown class");
  SS_ASSERT(record.pool_index >= -1 && record.pool_index < static_cast<int>(impl_->pools.size()),
            "request of an unknown pool");
  const auto c = static_cast<std::size_t>(record.class_index);
  double usd_per_ns = 0;
  if (record.pool_index >= 0 && !impl_->usd_per_replica_ns.empty())
    usd_per_ns = impl_->usd_per_replica_ns[static_cast<std::size_t>(record.pool_index)];
  const bool warmup = impl_->warmup.covers(record.id, record.arrival_ns);
  if (warmup) {
    ++impl_->warmup_by_class[c];
    if (record.pool_index >= 0) ++impl_->warmup_by_pool[static_cast<std::size_t>(record.pool_index)];
    ++impl_->warmup_outcomes[static_cast<int>(record.outcome)];
  } else {
    const SloTargets slo = impl_->slos.empty() ? SloTargets{} : impl_->slos[c];
    MetricGroup::LatencyBuckets buckets;  // found once for both groups
    if (record.pool_index >= 0) {
      const auto p = static_cast<std::size_t>(record.pool_index);
      impl_->pools[p].add_request(record, usd_per_ns, slo, buckets);
      if (record.replica_index >= 0 && record.outcome == Outcome::completed) {
        auto& replicas = impl_->replicas[p];
        const auto r = static_cast<std::size_t>(record.replica_index);
        if (replicas.size() <= r) replicas.resize(r + 1);
        replicas[r].completed += 1;
        replicas[r].input_tokens += record.prompt_tokens;
        replicas[r].cached_input_tokens += record.cached_prompt_tokens;
      }
    }
    if (!(impl_->class_is_pool && record.pool_index >= 0)) {
      SS_ASSERT(!impl_->class_is_pool || record.outcome != Outcome::completed,
                "a completed request ran in a pool");
      impl_->classes[c].add_request(record, usd_per_ns, slo, buckets);
    }
  }
  if (sustained_) sustained_->add(record);  // warm-up ones too: they are load all the same
  // requests.csv lists every request, warm-up ones too.
  if (!sink_.empty()) {
    RequestRecord priced = record;
    priced.cost_usd = record.acct.gpu.total_ns() * usd_per_ns;
    priced.warmup = warmup;
    sink_(priced);
  }
}

RunSummary MetricsRecorder::summarize(Tick duration_ns) const {
  SS_ASSERT(duration_ns >= 0, "a run cannot last a negative time");
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

std::int64_t MetricsRecorder::completed() const { return impl_->outcome_total(Outcome::completed, &MetricGroup::completed); }

std::int64_t MetricsRecorder::rejected() const { return impl_->outcome_total(Outcome::rejected, &MetricGroup::rejected); }

std::int64_t MetricsRecorder::unfinished() const { return impl_->outcome_total(Outcome::unfinished, &MetricGroup::unfinished); }

std::int64_t MetricsRecorder::warmup_excluded() const {
  std::int64_t total = 0;
  for (std::int64_t n : impl_->warmup_by_class) total += n;
  return total;
}

}  // namespace servesim
