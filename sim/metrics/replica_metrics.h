#pragma once
// The metrics' subscription to one replica: what it measures (MeasurementListener) goes
// into the run's MetricsRecorder under the replica's pool. One per replica, so that each
// keeps its own sketch-bucket hints (a replica's gaps mostly fall in one bucket).
#include "sim/engine/measurement_listener.h"
#include "sim/metrics/quantile_sketch.h"
#include "sim/metrics/recorder.h"

namespace servesim {

class ReplicaMetrics final : public MeasurementListener {
 public:
  ReplicaMetrics(MetricsRecorder& recorder, int pool_index)
      : recorder_(recorder),
        pool_index_(pool_index),
        gap_hint_(recorder.new_index_hint()),
        lazy_gap_hint_(recorder.new_index_hint()) {}

  void on_token_gaps(int class_index, Tick gap_ns, std::int64_t count) override;
  void on_token_gap_runs(int class_index, std::span<const Tick> gaps, const std::vector<CountRun>& runs) override;
  void on_request_completed(const RequestState& request, Tick now_ns, Tick frontend_ns) override;
  void on_request_rejected(const RequestState& request, Tick now_ns, const char* reason) override;

 private:
  MetricsRecorder& recorder_;
  int pool_index_;
  // The recorder's, so that they outlive this when its updates are applied later.
  QuantileSketch::IndexHint* gap_hint_;       // the bucket of the last gap of a stepped request
  QuantileSketch::IndexHint* lazy_gap_hint_;  // the lazy decodes' step gaps mostly share one
};

}  // namespace servesim
