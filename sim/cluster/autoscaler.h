#pragma once
// The replica life cycle of an autoscaled pool (docs/cluster.md, "Autoscaling"). The pool
// holds max_replicas replicas from the start; each is off, starting (its cold start: paid,
// not yet routable), active (routable) or draining (no new requests; it finishes its own,
// then turns off). Every `interval` (and at a schedule's steps) the policy asks for a
// count; the autoscaler clamps it to [min_replicas, max_replicas], holds scale-downs for
// the stabilisation window and starts or drains replicas. Only autoscaled pools have one,
// so no other run has its events.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sim/cluster/autoscale_policy.h"
#include "sim/cluster/autoscale_spec.h"
#include "sim/cluster/gpu_budget.h"
#include "sim/core/signal.h"
#include "sim/core/simulator.h"
#include "sim/engine/replica.h"

namespace servesim {

class BudgetBroker;

enum class ReplicaPhase : std::uint8_t { off, starting, active, draining };
const char* phase_name(ReplicaPhase phase);

// The engine's start beyond loading the weights, when `cold_start` is not given: an
// assumption, not a measurement. It stands for a vLLM V1 start with a warm torch.compile
// cache (process and imports, the memory-profiling run, CUDA-graph capture of the default
// batch sizes), which takes tens of seconds; vLLM ships `vllm bench startup`
// (vllm/benchmarks/startup.py) to measure it on a given machine. Give `cold_start` from
// such a measurement where it matters.
inline constexpr Tick kEngineStartNs = 60 * kNsPerSec;

// The cold start when none is given: the weights one GPU holds over its host link (PCIe),
// plus kEngineStartNs. REQUIRES: host_link_bytes_per_s > 0.
Tick default_cold_start_ns(double weight_bytes_per_gpu, double host_link_bytes_per_s);

class Autoscaler {
 public:
  // `replicas`: the pool's max_replicas replicas; the first spec.initial_replicas are active
  // (warm) at t = 0, the others off. REQUIRES: the spec is valid (the loader checks it).
  Autoscaler(Simulator& sim, const AutoscaleSpec& spec, Tick cold_start_ns,
             const std::vector<std::unique_ptr<Replica>>& replicas, std::unique_ptr<AutoscalePolicy> policy);
  Autoscaler(const Autoscaler&) = delete;
  Autoscaler& operator=(const Autoscaler&) = delete;

  // Arms the first evaluation. `work_remains` says whether the run still has arrivals to
  // come or requests inside: evaluations stop once it is false, so they never keep a run
  // alive that has ended.
  void start(std::function<bool()> work_remains);
  // A request left replica `request.replica_index` (completed, rejected or withdrawn).
  void on_request_left(const RequestState& request);

  ReplicaPhase phase(std::size_t replica) const { return phase_[replica]; }
  bool routable(std::size_t replica) const { return phase_[replica] == ReplicaPhase::active; }
  int count(ReplicaPhase phase) const;
  int active() const { return count(ReplicaPhase::active); }
  int paid() const { return static_cast<int>(phase_.size()) - count(ReplicaPhase::off); }
  int provisioned() const { return count(ReplicaPhase::active) + count(ReplicaPhase::starting); }

  // Replica time paid from t = 0 up to `end_ns` (every interval from a start to the turn
  // off, cut at end_ns), one replica or all.
  Tick replica_paid_ns(std::size_t replica, Tick end_ns) const;
  Tick paid_ns(Tick end_ns) const;

  // Called after every change of phase, with the time (timeseries.csv, the invariant checker).
  using ChangeObserver = Signal<void(Tick now_ns)>::Slot;
  void add_change_observer(ChangeObserver fn) { changed_.connect(std::move(fn)); }

  // `cluster.gpus`: from now on every replica this pool pays for holds `gpus_per_replica`
  // GPUs of `budget`, starting with those paid now; a start that does not fit waits for a
  // later evaluation (gpu_budget.h). REQUIRES: the budget fits the replicas paid now.
  void share_budget(GpuBudget& budget, int gpus_per_replica);
  // Replica starts the policy asked for that the shared GPU budget could not fit.
  std::int64_t starts_deferred() const { return starts_deferred_; }
  int gpus_per_replica() const { return gpus_per_replica_; }

  // Under a budget policy that reclaims (budget_broker.h), after share_budget: the broker
  // hears of the starts that do not fit at each evaluation and of every turn-off, and says
  // whether a start may take the GPUs free now. `member`: this pool's number there.
  void join_broker(BudgetBroker& broker, std::size_t member);
  std::size_t budget_member() const { return member_; }
  // The replica the pool gives back when another pool reclaims GPUs: none at or below
  // min_replicas; else the latest replica still in its cold start (it serves nobody yet),
  // else the active one with the fewest requests (ties: highest index).
  std::optional<std::size_t> reclaim_candidate() const;
  // Gives replica `i` (a reclaim_candidate()) back: stops it if starting (its GPUs free at
  // once), else drains it; the pool does not take it back while it drains.
  void reclaim(std::size_t i);
  // Starts up to `replicas` off replicas while the budget fits them (GPUs freed for this
  // pool); returns how many it still waits for (0 once it has no off replica left).
  int start_waiting(int replicas);
  // For a budget policy's rank: TTFT p90 over the trailing window / autoscale.ttft_target
  // (none without samples in the window, or without a TTFT target), and the requests
  // inside the paid replicas.
  std::optional<double> ttft_over_target();
  std::int64_t in_flight() const;

  const AutoscaleSpec& spec() const { return spec_; }
  Tick cold_start_ns() const { return cold_start_ns_; }
  std::int64_t evaluations() const { return evaluations_; }

 private:
  void evaluate();
  void arm_next();
  void scale_to(int target);
  void start_replica(std::size_t i);
  void drain(std::size_t i);
  bool may_start() const;
  void check_drained(std::size_t i);
  void set_phase(std::size_t i, ReplicaPhase p);
  void notify();
  std::optional<Tick> ttft_p90_ns();

  Simulator& sim_;
  AutoscaleSpec spec_;
  Tick cold_start_ns_;
  const std::vector<std::unique_ptr<Replica>>& replicas_;
  std::unique_ptr<AutoscalePolicy> policy_;
  std::function<bool()> work_remains_;
  EventHandle next_;
  std::int64_t evaluations_ = 0;

  std::vector<ReplicaPhase> phase_;
  std::vector<Tick> paid_since_ns_;                          // -1 while off
  std::vector<std::vector<std::pair<Tick, Tick>>> paid_;     // closed [from, to) intervals
  std::vector<EventHandle> ready_;                           // end of a cold start
  std::vector<EventHandle> drain_check_;                     // pending check of a draining replica
  std::deque<std::pair<Tick, int>> history_;  // (time, clamped count asked for) over the window
  std::deque<std::pair<Tick, Tick>> ttft_;    // (finish, TTFT) over the window; slo_headroom only
  Signal<void(Tick now_ns)> changed_;
  GpuBudget* budget_ = nullptr;  // cluster.gpus; null: the pool is bounded by max_replicas only
  int gpus_per_replica_ = 0;
  std::int64_t starts_deferred_ = 0;
  int short_by_ = 0;  // starts of the current evaluation that did not fit
  BudgetBroker* broker_ = nullptr;  // null: first_come (no pool shrinks for another)
  std::size_t member_ = 0;
  std::vector<bool> reclaimed_;  // draining for another pool: not taken back
};

}  // namespace servesim
