#include "sim/metrics/replica_metrics.h"

#include "sim/metrics/request_record.h"

namespace servesim {

void ReplicaMetrics::on_token_gaps(int class_index, Tick gap_ns, std::int64_t count) {
  recorder_.record_itl(class_index, pool_index_, gap_ns, count, gap_hint_);
}

void ReplicaMetrics::on_token_gap_runs(int class_index, std::span<const Tick> gaps,
                                       const std::vector<CountRun>& runs) {
  recorder_.record_itl_gaps(class_index, pool_index_, gaps, runs, lazy_gap_hint_);
}

void ReplicaMetrics::on_request_completed(const RequestState& request, Tick now_ns, Tick frontend_ns) {
  recorder_.record_request(make_request_record(request, Outcome::completed, now_ns, frontend_ns));
}

void ReplicaMetrics::on_request_rejected(const RequestState& request, Tick now_ns, const char* reason) {
  RequestRecord record = make_request_record(request, Outcome::rejected, now_ns);
  record.reject_reason = reason;
  recorder_.record_request(record);
}

}  // namespace servesim
