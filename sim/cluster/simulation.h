#pragma once
// One run: workload sources, pools of replicas, routers and metrics on one simulated clock.
// A Simulation owns everything it uses, so runs can go in parallel threads.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/cluster/budget_broker.h"
#include "sim/cluster/cluster_config.h"
#include "sim/cluster/gpu_budget.h"
#include "sim/cluster/kv_transfer_network.h"
#include "sim/cluster/pool.h"
#include "sim/cluster/saturation_verdict.h"
#include "sim/cluster/saturation_watch.h"
#include "sim/core/simulator.h"
#include "sim/metrics/recorder.h"
#include "sim/metrics/run_result.h"
#include "sim/workload/source.h"

namespace servesim {

class EnergyMeter;

class Simulation final : public ReplicaListener {
 public:
  // Throws ConfigError when a pool cannot be built (weights do not fit, unknown policy), and
  // when the run could never end (synthetic arrivals with neither stop.requests nor stop.time).
  Simulation(std::uint64_t seed, StopSpec stop, std::vector<ClassSpec> workload, ClusterConfig cluster);
  ~Simulation() override;

  // Every request record is also passed to each sink added, in order, as the run goes
  // (the invariant checker, the progress line; MetricsRecorder::add_request_sink).
  void add_request_sink(std::function<void(const RequestRecord&)> sink);
  // The same records, after the sinks, for a sink that only writes them out (requests.csv):
  // a long run hands them to it on its metrics' worker thread
  // (MetricsRecorder::add_record_writer). Every record has reached it when run() returns
  // or throws.
  void add_record_writer(std::function<void(const RequestRecord&)> writer);
  // A decision, not an observer (those are Signals): called after every arrival with the
  // arrivals so far and the requests inside (waiting or running). Returning true ends
  // the run there: admission and the clock stop, requests
  // inside are reported as unfinished, and RunResult::aborted is set. `servesim capacity`
  // uses it to stop a run whose queue plainly grows without bound.
  using StopCheck = std::function<bool(std::int64_t arrived, std::int64_t in_flight)>;
  void set_stop_check(StopCheck observer);
  RunResult run();

  const std::vector<std::unique_ptr<Pool>>& pools() const { return pools_; }
  // `cluster.gpus`: the budget every pool draws from; null without it.
  const GpuBudget* gpu_budget() const { return gpu_budget_.get(); }

  void on_request_done(RequestState& request, Tick now_ns) override;
  void on_first_scheduled(RequestState& request, Tick now_ns) override;
  void on_prefill_handed_over(RequestState& request, Tick now_ns) override;
  void on_head_blocked(int pool_index, HeadBlock why) override;
  // The run's saturation watch, fed before the arrival observer is called: an observer may
  // stop the run once saturation_watch().tripped_early().
  const SaturationWatch& saturation_watch() const { return saturation_; }
  // After run(): the one saturation rule at `tolerance` (RunResult holds it at
  // kSustainTolerance; `capacity` may ask for another).
  SaturationVerdict saturation_verdict(double tolerance) const;

  // Disaggregation: the network, and the first GPU node of each replica (docs/cluster.md).
  // Null / empty without a prefill pool.
  const Topology* topology() const { return topology_.get(); }
  int first_gpu(int pool, int replica) const;

 private:
  struct HandOver {  // a request whose KV is on its way from a prefill to a decode replica
    RequestState* request = nullptr;
    int decode_replica = 0;
    int flows_left = 0;
    Tick prefill_end_ns = 0;
  };
  void resolve_admission();
  void place_on_topology();
  void reach_kv_stores();
  void on_kv_arrived(std::uint64_t request_id);
  void on_timeout(std::uint64_t request_id);
  // The request's first step came (or it left without one): it no longer counts as
  // waiting in its class and pool, and its queue timeout, if any, can no longer fire.
  void leave_unscheduled(const RequestState& request);
  void cancel_timeout(std::uint64_t request_id);
  void reject_at_door(RequestState& request, int pool, const char* reason);
  void record_unfinished(const RequestState& request);

  void arm_source(int class_index);
  void on_arrival(int class_index);
  // One arrival of `src` (class `class_index`), due now: admitted, routed and submitted.
  void admit_one(int class_index, RequestSource& src);
  // Whether another arrival is due at this instant (this source's next, or another's armed).
  bool more_arrivals_now(int class_index);
  RequestState* new_request_state();
  void note_saturation(RunResult& result) const;
  void note_utilisation(RunResult& result) const;
  // KV tiers: the bytes moved to and from them, in the kv_tiers objects of the pools with
  // tiers and overall.
  void note_kv_tier_traffic(RunResult& result) const;
  // Multi-LoRA: adapter loads, hits and misses in the lora objects of the pools serving
  // adapters and overall (simulation_lora.cpp).
  void note_lora(RunResult& result) const;
  // Paid GPU time per pool and overall, when some pool autoscales (simulation_fleet.cpp).
  void note_fleet(RunResult& result) const;
  // `cluster.energy`: the meter's observers, and its summary objects (simulation_energy.cpp).
  void meter_energy();
  void note_energy(RunResult& result) const;
  // Arrivals still to come or requests inside: autoscalers evaluate only while this holds.
  bool work_remains() const;
  // `cluster.gpus`: fixed pools hold their GPUs from the start, autoscaled pools take and
  // give theirs as replicas start and turn off, under cluster.budget_policy
  // (simulation_fleet.cpp).
  void share_gpu_budget(int total_gpus);

  std::uint64_t seed_;
  StopSpec stop_;
  std::vector<ClassSpec> workload_;
  ClusterConfig cluster_;
  Simulator sim_;
  std::unique_ptr<MetricsRecorder> metrics_;
  std::unique_ptr<EnergyMeter> energy_;  // null without cluster.energy
  std::vector<std::unique_ptr<RequestSource>> sources_;
  // Each source's next arrival: a timer that calls on_arrival(class_index) (its `arg`
  // points here: sized once, so the addresses hold), and the time it is armed for.
  struct SourceTimer {
    Simulation* simulation;
    int class_index;
    TimerId timer;
    Tick armed_ns = kTickMax;  // kTickMax once it has fired
  };
  static void fire_arrival(void* source_timer);
  std::vector<SourceTimer> source_timers_;
  std::vector<int> pool_of_class_;
  std::vector<std::unique_ptr<Pool>> pools_;
  std::unique_ptr<GpuBudget> gpu_budget_;  // cluster.gpus; null without it
  std::unique_ptr<BudgetBroker> budget_broker_;  // a budget_policy that reclaims; null under first_come

  std::vector<std::unique_ptr<RequestState>> request_slab_;  // reused, so memory tracks in-flight
  std::vector<RequestState*> free_states_;
  std::uint64_t next_request_id_ = 0;
  std::int64_t arrived_ = 0;
  std::int64_t in_flight_ = 0;
  bool admitting_ = true;
  bool holding_steps_ = false;  // the replicas hold their steps until this instant's arrivals are in
  Tick first_arrival_ns_ = -1;
  Tick last_done_ns_ = 0;
  std::int64_t peak_in_flight_ = 0;
  std::int64_t in_flight_at_last_arrival_ = 0;
  SaturationWatch saturation_{0};  // sized in the constructor, once the pools are known
  // Per pool: its own watch, the requests inside it (waiting or running there; a request
  // whose KV is on its way to a decode pool is in none), its never-scheduled requests and
  // this instant's arrivals, so the pool that runs short names the resource.
  std::vector<SaturationWatch> pool_watch_;
  std::vector<std::int64_t> pool_in_flight_;
  std::vector<std::int64_t> pool_unscheduled_;
  std::vector<std::int64_t> pool_arrivals_at_instant_;
  SustainedRateMeter sustained_;   // fed by the recorder and admit_one
  StopCheck stop_check_;
  bool aborted_ = false;

  // Admission (cluster.admission), per class: limits, and requests in the class's pool that
  // were never scheduled. Pending timeouts by request id.
  std::vector<std::int64_t> queue_limit_;  // -1: none
  std::vector<Tick> timeout_ns_;           // -1: none
  std::vector<std::int64_t> unscheduled_;
  std::int64_t unscheduled_total_ = 0;  // the sum of unscheduled_: the cluster's waiting backlog
  Tick instant_ns_ = -1;                // the time of the latest arrival
  std::int64_t arrivals_at_instant_ = 0;  // arrivals at instant_ns_ so far
  std::unordered_map<std::uint64_t, std::pair<EventHandle, RequestState*>> timeouts_;

  std::vector<int> decode_pool_of_;  // per pool: its decode pool, -1 unless role prefill
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<KvTransferNetwork> network_;
  std::vector<std::vector<int>> first_gpu_;  // [pool][replica] -> index into topology_->gpus()
  std::map<std::uint64_t, HandOver> hand_overs_;  // ordered: end-of-run records are deterministic
};

}  // namespace servesim
