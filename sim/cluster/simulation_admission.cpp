// Simulation: per-class admission at the door of the class's pool (docs/cluster.md).
// `queue_limit` caps the class's requests in its pool that were never scheduled; `timeout`
// bounds the wait from arrival to the first step that computes any of a request's tokens.
// Refused and timed-out requests leave as rejected with the reason `queue_full` or
// `timed_out`, so they stay in the conservation count and in the reports.
#include "sim/cluster/simulation.h"
#include "sim/core/assert.h"
#include "sim/core/errors.h"
#include "sim/metrics/request_record.h"

namespace servesim {

void Simulation::resolve_admission() {
  queue_limit_.assign(workload_.size(), -1);
  timeout_ns_.assign(workload_.size(), -1);
  unscheduled_.assign(workload_.size(), 0);
  for (std::size_t i = 0; i < cluster_.admission.size(); ++i) {
    const ClassAdmission& a = cluster_.admission[i];
    std::size_t c = 0;
    while (c < workload_.size() && workload_[c].name != a.class_name) ++c;
    if (c == workload_.size())
      throw ConfigError("", 0, "cluster.admission." + a.class_name, "no workload class '" + a.class_name + "'");
    if (a.queue_limit) queue_limit_[c] = *a.queue_limit;
    if (a.timeout_ns) timeout_ns_[c] = *a.timeout_ns;
  }
}

void Simulation::leave_unscheduled(const RequestState& request) {
  const auto c = static_cast<std::size_t>(request.spec.class_index);
  --unscheduled_[c];
  --unscheduled_total_;
  --pool_unscheduled_[static_cast<std::size_t>(pool_of_class_[c])];
}

void Simulation::cancel_timeout(std::uint64_t request_id) {
  if (auto it = timeouts_.find(request_id); it != timeouts_.end()) {
    sim_.cancel(it->second.first);
    timeouts_.erase(it);
  }
}

void Simulation::on_first_scheduled(RequestState& request, Tick) {
  if (request.spec.class_index < 0) return;
  leave_unscheduled(request);
  cancel_timeout(request.spec.id);
}

void Simulation::on_timeout(std::uint64_t request_id) {
  const auto it = timeouts_.find(request_id);
  SS_ASSERT(it != timeouts_.end(), "a timeout fired for a request that has no pending timeout");
  RequestState& r = *it->second.second;
  timeouts_.erase(it);
  auto& pool = *pools_[static_cast<std::size_t>(r.pool_index)];
  const bool withdrawn = pool.replicas()[static_cast<std::size_t>(r.replica_index)]->withdraw_unscheduled(r, "timed_out");
  SS_ASSERT(withdrawn, "a request past its timeout was scheduled without cancelling it");
}

// Refused before any replica saw it: recorded against its pool, no replica.
void Simulation::reject_at_door(RequestState& request, int pool, const char* reason) {
  request.pool_index = pool;
  request.status = RequestStatus::finished;
  RequestRecord rec = make_request_record(request, Outcome::rejected, sim_.now());
  rec.reject_reason = reason;
  metrics_->record_request(rec);
  request.first_scheduled_ns = 0;  // not counted among the class's unscheduled
  on_request_done(request, sim_.now());
}

}  // namespace servesim
