#include "sim/metrics/recorder.h"

#include "sim/core/assert.h"
#include "sim/metrics/metric_group.h"

namespace servesim {

// The run keeps one group per class and per pool; the whole-run group is the merge of the
// class groups, built only at summarize() so each event updates two groups, not three.
struct MetricsRecorder::Impl {
  std::vector<MetricGroup> classes;
  std::vector<MetricGroup> pools;
};

MetricsRecorder::MetricsRecorder(std::vector<std::string> class_names,
                                 std::vector<std::string> pool_names)
    : class_names_(std::move(class_names)),
      pool_names_(std::move(pool_names)),
      impl_(std::make_shared<Impl>()) {
  impl_->classes.resize(class_names_.size());
  impl_->pools.resize(pool_names_.size());
}

void MetricsRecorder::record_itl(int class_index, int pool_index, Tick gap_ns,
                                 std::int64_t count) {
  SS_ASSERT(class_index >= 0 && class_index < static_cast<int>(impl_->classes.size()),
            "ITL of an unknown class");
  SS_ASSERT(pool_index >= 0 && pool_index < static_cast<int>(impl_->pools.size()),
            "ITL of an unknown pool");
  SS_ASSERT(gap_ns >= 0, "inter-token gaps cannot be negative");
  const double gap = static_cast<double>(gap_ns);
  impl_->classes[static_cast<std::size_t>(class_index)].itl_ns.add(gap, count);
  impl_->pools[static_cast<std::size_t>(pool_index)].itl_ns.add(gap, count);
}

void MetricsRecorder::record_request(const RequestRecord& record) {
  SS_ASSERT(record.class_index >= 0 &&
                record.class_index < static_cast<int>(impl_->classes.size()),
            "request of an unknown class");
  SS_ASSERT(record.pool_index >= -1 && record.pool_index < static_cast<int>(impl_->pools.size()),
            "request of an unknown pool");
  impl_->classes[static_cast<std::size_t>(record.class_index)].add_request(record);
  if (record.pool_index >= 0) {
    impl_->pools[static_cast<std::size_t>(record.pool_index)].add_request(record);
  }
  if (sink_) sink_(record);
}

RunSummary MetricsRecorder::summarize(Tick duration_ns) const {
  SS_ASSERT(duration_ns >= 0, "a run cannot last a negative time");
  MetricGroup overall;
  for (const MetricGroup& group : impl_->classes) overall.merge(group);

  RunSummary summary;
  summary.overall = overall.to_block(duration_ns);
  for (std::size_t i = 0; i < class_names_.size(); ++i) {
    summary.classes.emplace_back(class_names_[i], impl_->classes[i].to_block(duration_ns));
  }
  for (std::size_t i = 0; i < pool_names_.size(); ++i) {
    summary.pools.emplace_back(pool_names_[i], impl_->pools[i].to_block(duration_ns));
  }
  return summary;
}

std::int64_t MetricsRecorder::completed() const {
  std::int64_t total = 0;
  for (const MetricGroup& group : impl_->classes) total += group.completed;
  return total;
}

std::int64_t MetricsRecorder::rejected() const {
  std::int64_t total = 0;
  for (const MetricGroup& group : impl_->classes) total += group.rejected;
  return total;
}

std::int64_t MetricsRecorder::unfinished() const {
  std::int64_t total = 0;
  for (const MetricGroup& group : impl_->classes) total += group.unfinished;
  return total;
}

}  // namespace servesim
