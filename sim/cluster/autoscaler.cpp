#include "sim/cluster/autoscaler.h"

#include <algorithm>
#include <cmath>

#include "sim/cluster/budget_broker.h"
#include "sim/core/assert.h"

namespace servesim {

const char* phase_name(ReplicaPhase phase) {
  switch (phase) {
    case ReplicaPhase::off: return "off";
    case ReplicaPhase::starting: return "starting";
    case ReplicaPhase::active: return "active";
    case ReplicaPhase::draining: return "draining";
  }
  return "?";
}

Tick default_cold_start_ns(double weight_bytes_per_gpu, double host_link_bytes_per_s) {
  SS_ASSERT(host_link_bytes_per_s > 0, "the default cold start needs a host link");
  return static_cast<Tick>(std::llround(weight_bytes_per_gpu / host_link_bytes_per_s * 1e9)) + kEngineStartNs;
}

Autoscaler::Autoscaler(Simulator& sim, const AutoscaleSpec& spec, Tick cold_start_ns,
                       const std::vector<std::unique_ptr<Replica>>& replicas, std::unique_ptr<AutoscalePolicy> policy)
    : sim_(sim), spec_(spec), cold_start_ns_(cold_start_ns), replicas_(replicas), policy_(std::move(policy)) {
  const std::size_t n = replicas_.size();
  SS_ASSERT(static_cast<int>(n) == spec_.max_replicas, "an autoscaled pool holds max_replicas replicas");
  SS_ASSERT(spec_.min_replicas >= 1 && spec_.initial_replicas >= spec_.min_replicas &&
                spec_.initial_replicas <= spec_.max_replicas,
            "initial replicas within [min_replicas, max_replicas]");
  phase_.assign(n, ReplicaPhase::off);
  paid_since_ns_.assign(n, -1);
  paid_.resize(n);
  ready_.resize(n);
  drain_check_.resize(n);
  for (std::size_t i = 0; i < static_cast<std::size_t>(spec_.initial_replicas); ++i) {
    phase_[i] = ReplicaPhase::active;  // up before the run starts, paid from t = 0
    paid_since_ns_[i] = 0;
  }
}

int Autoscaler::count(ReplicaPhase p) const {
  return static_cast<int>(std::count(phase_.begin(), phase_.end(), p));
}

void Autoscaler::start(std::function<bool()> work_remains) {
  work_remains_ = std::move(work_remains);
  // The fleet the run starts with counts as asked for at t = 0, so a scale-down below it
  // waits for the stabilisation window like any other.
  history_.emplace_back(sim_.now(), spec_.initial_replicas);
  arm_next();
}

void Autoscaler::arm_next() {
  if (!work_remains_ || !work_remains_()) return;
  Tick next = sim_.now() + spec_.interval_ns;
  if (const std::optional<Tick> change = policy_->next_change_after(sim_.now())) next = std::min(next, *change);
  next_ = sim_.schedule_at(next, [this] { evaluate(); });
}

std::optional<Tick> Autoscaler::ttft_p90_ns() {
  const Tick from = sim_.now() - spec_.window_ns;
  while (!ttft_.empty() && ttft_.front().first < from) ttft_.pop_front();
  if (ttft_.empty()) return std::nullopt;
  std::vector<Tick> v;
  v.reserve(ttft_.size());
  for (const auto& [at, ttft] : ttft_) v.push_back(ttft);
  // Nearest rank: the smallest sample with at least 90% of the samples at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(v.size()))) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
  return v[rank];
}

void Autoscaler::evaluate() {
  ++evaluations_;
  const Tick now = sim_.now();
  FleetObservation o;
  o.now_ns = now;
  o.active = active();
  o.starting = count(ReplicaPhase::starting);
  o.provisioned = o.active + o.starting;
  for (std::size_t i = 0; i < replicas_.size(); ++i) {
    if (phase_[i] == ReplicaPhase::off) continue;
    o.waiting += replicas_[i]->num_waiting();
    o.in_flight += replicas_[i]->outstanding();
  }
  if (policy_->reads_ttft()) o.ttft_p90_ns = ttft_p90_ns();
  // The bounds are part of every policy: it may ask for anything, the fleet stays within them.
  const int want = std::clamp(policy_->desired(o), spec_.min_replicas, spec_.max_replicas);

  // Scale-down stabilisation (Kubernetes HPA's behavior.scaleDown.stabilizationWindowSeconds):
  // shrink only to the largest count asked for over the trailing window; grow at once.
  history_.emplace_back(now, want);
  while (!history_.empty() && history_.front().first < now - spec_.scale_down_delay_ns) history_.pop_front();
  int target = want;
  if (want < o.provisioned) {
    int highest = want;
    for (const auto& [at, n] : history_) highest = std::max(highest, n);
    target = std::min(o.provisioned, highest);
  }
  short_by_ = 0;
  if (target != o.provisioned) scale_to(target);
  if (broker_) broker_->asked(member_, short_by_);
  arm_next();
}

void Autoscaler::scale_to(int target) {
  int provisioned = this->provisioned();
  // Growing: a draining replica still holds its weights, so it serves again at once; then
  // off replicas start, lowest index first.
  for (std::size_t i = 0; i < phase_.size() && provisioned < target; ++i)
    if (phase_[i] == ReplicaPhase::draining && !(broker_ && reclaimed_[i])) {
      sim_.cancel(drain_check_[i]);
      set_phase(i, ReplicaPhase::active);
      ++provisioned;
    }
  for (std::size_t i = 0; i < phase_.size() && provisioned < target; ++i)
    if (phase_[i] == ReplicaPhase::off) {
      if (budget_ && !may_start()) {
        starts_deferred_ += target - provisioned;  // asked again at the next evaluation
        short_by_ = target - provisioned;
        break;
      }
      start_replica(i);
      ++provisioned;
    }
  // Shrinking: a replica still in its cold start stops first (the latest started, highest
  // index), since it serves nobody yet; then the active replica with the fewest requests
  // drains (ties: highest index). At least min_replicas >= 1 stay active or starting, and
  // a starting one is stopped before any active one drains, so one stays routable.
  for (std::size_t k = phase_.size(); k-- > 0 && provisioned > target;)
    if (phase_[k] == ReplicaPhase::starting) {
      sim_.cancel(ready_[k]);
      set_phase(k, ReplicaPhase::off);
      --provisioned;
    }
  while (provisioned > target) {
    std::size_t pick = phase_.size();
    for (std::size_t i = phase_.size(); i-- > 0;) {
      if (phase_[i] != ReplicaPhase::active) continue;
      if (pick == phase_.size() || replicas_[i]->outstanding() < replicas_[pick]->outstanding()) pick = i;
    }
    SS_ASSERT(pick < phase_.size(), "an active replica to drain");
    drain(pick);
    --provisioned;
  }
  notify();
}

void Autoscaler::start_replica(std::size_t i) {
  if (cold_start_ns_ == 0) {
    set_phase(i, ReplicaPhase::active);
    return;
  }
  set_phase(i, ReplicaPhase::starting);
  ready_[i] = sim_.schedule_in(cold_start_ns_, [this, i] {
    set_phase(i, ReplicaPhase::active);
    notify();
  });
}

bool Autoscaler::may_start() const {
  return broker_ ? broker_->may_start(member_) : budget_->fits(gpus_per_replica_);
}

void Autoscaler::join_broker(BudgetBroker& broker, std::size_t member) {
  SS_ASSERT(budget_ != nullptr, "a pool joins a budget broker after share_budget");
  broker_ = &broker;
  member_ = member;
  reclaimed_.assign(phase_.size(), false);
}

std::optional<std::size_t> Autoscaler::reclaim_candidate() const {
  if (provisioned() <= spec_.min_replicas) return std::nullopt;
  for (std::size_t k = phase_.size(); k-- > 0;)
    if (phase_[k] == ReplicaPhase::starting) return k;
  std::optional<std::size_t> pick;
  for (std::size_t i = phase_.size(); i-- > 0;) {
    if (phase_[i] != ReplicaPhase::active) continue;
    if (!pick || replicas_[i]->outstanding() < replicas_[*pick]->outstanding()) pick = i;
  }
  return pick;
}

void Autoscaler::reclaim(std::size_t i) {
  SS_ASSERT(broker_ && provisioned() > spec_.min_replicas, "a replica reclaimed above min_replicas");
  if (phase_[i] == ReplicaPhase::starting) {
    sim_.cancel(ready_[i]);
    set_phase(i, ReplicaPhase::off);
  } else {
    SS_ASSERT(phase_[i] == ReplicaPhase::active, "an active or starting replica reclaimed");
    reclaimed_[i] = true;
    drain(i);
  }
  notify();
}

int Autoscaler::start_waiting(int replicas) {
  int started = 0;
  for (std::size_t i = 0; i < phase_.size() && started < replicas; ++i) {
    if (phase_[i] != ReplicaPhase::off) continue;
    if (!budget_->fits(gpus_per_replica_)) break;
    start_replica(i);
    ++started;
  }
  if (started > 0) notify();
  if (count(ReplicaPhase::off) == 0) return 0;
  return replicas - started;
}

std::optional<double> Autoscaler::ttft_over_target() {
  if (!policy_->reads_ttft() || spec_.ttft_target_ns <= 0) return std::nullopt;
  const std::optional<Tick> p90 = ttft_p90_ns();
  if (!p90) return std::nullopt;
  return static_cast<double>(*p90) / static_cast<double>(spec_.ttft_target_ns);
}

std::int64_t Autoscaler::in_flight() const {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < replicas_.size(); ++i)
    if (phase_[i] != ReplicaPhase::off) n += replicas_[i]->outstanding();
  return n;
}

void Autoscaler::drain(std::size_t i) {
  set_phase(i, ReplicaPhase::draining);
  check_drained(i);
}

void Autoscaler::check_drained(std::size_t i) {
  if (phase_[i] == ReplicaPhase::draining && replicas_[i]->outstanding() == 0) set_phase(i, ReplicaPhase::off);
}

void Autoscaler::on_request_left(const RequestState& request) {
  if (request.replica_index < 0) return;  // refused at the door
  const auto i = static_cast<std::size_t>(request.replica_index);
  if (policy_->reads_ttft() && request.first_token_ns >= 0)
    ttft_.emplace_back(sim_.now(), request.first_token_ns - request.spec.arrival_ns);
  // The replica still lists a request that completes in this event: look once it is out.
  if (phase_[i] == ReplicaPhase::draining && !sim_.pending(drain_check_[i]))
    drain_check_[i] = sim_.schedule_in(0, [this, i] {
      const bool was_draining = phase_[i] == ReplicaPhase::draining;
      check_drained(i);
      if (was_draining && phase_[i] == ReplicaPhase::off) notify();
    });
}

void Autoscaler::set_phase(std::size_t i, ReplicaPhase p) {
  const Tick now = sim_.now();
  const bool was_paid = phase_[i] != ReplicaPhase::off;
  const bool paid = p != ReplicaPhase::off;
  if (!was_paid && paid) {
    paid_since_ns_[i] = now;
    if (budget_) budget_->take(gpus_per_replica_);
  }
  if (was_paid && !paid) {
    paid_[i].emplace_back(paid_since_ns_[i], now);
    paid_since_ns_[i] = -1;
    if (budget_) budget_->give(gpus_per_replica_);
  }
  phase_[i] = p;
  if (broker_ && was_paid && !paid) {
    reclaimed_[i] = false;
    broker_->turned_off(member_, i);
  }
}

void Autoscaler::share_budget(GpuBudget& budget, int gpus_per_replica) {
  budget_ = &budget;
  gpus_per_replica_ = gpus_per_replica;
  budget.take(paid() * gpus_per_replica);
}

void Autoscaler::notify() {
  changed_(sim_.now());
}

Tick Autoscaler::replica_paid_ns(std::size_t i, Tick end_ns) const {
  Tick total = 0;
  for (const auto& [from, to] : paid_[i]) total += std::max<Tick>(std::min(to, end_ns) - from, 0);
  if (paid_since_ns_[i] >= 0) total += std::max<Tick>(end_ns - paid_since_ns_[i], 0);
  return total;
}

Tick Autoscaler::paid_ns(Tick end_ns) const {
  Tick total = 0;
  for (std::size_t i = 0; i < phase_.size(); ++i) total += replica_paid_ns(i, end_ns);
  return total;
}

}  // namespace servesim
