#pragma once
// One run: workload sources, pools of replicas, routers and metrics on one simulated clock.
// A Simulation owns everything it uses, so runs can go in parallel threads.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/cluster/cluster_config.h"
#include "sim/cluster/pool.h"
#include "sim/core/simulator.h"
#include "sim/metrics/recorder.h"
#include "sim/workload/source.h"

namespace servesim {

struct RunResult {
  RunSummary summary;
  std::int64_t arrived = 0;
  std::int64_t completed = 0;
  std::int64_t rejected = 0;
  std::int64_t unfinished = 0;
  std::int64_t steps = 0;
  std::int64_t preemptions = 0;
  std::uint64_t events = 0;
  Tick end_ns = 0;
  bool stopped_by_time = false;
};

class Simulation final : public ReplicaListener {
 public:
  // Throws ConfigError when a pool cannot be built (weights do not fit, unknown policy).
  Simulation(std::uint64_t seed, StopSpec stop, std::vector<ClassSpec> workload, ClusterConfig cluster);
  ~Simulation() override;

  // Every request record is also passed here as the run goes (for requests.csv).
  void set_request_sink(std::function<void(const RequestRecord&)> sink);
  RunResult run();

  const std::vector<std::unique_ptr<Pool>>& pools() const { return pools_; }

  void on_request_done(RequestState& request, Tick now_ns) override;

 private:
  void arm_source(int class_index);
  void on_arrival(int class_index);
  RequestState* new_request_state();

  std::uint64_t seed_;
  StopSpec stop_;
  std::vector<ClassSpec> workload_;
  ClusterConfig cluster_;
  Simulator sim_;
  std::unique_ptr<MetricsRecorder> metrics_;
  std::vector<std::unique_ptr<RequestSource>> sources_;
  std::vector<EventHandle> source_events_;
  std::vector<Tick> source_event_ns_;
  std::vector<int> pool_of_class_;
  std::vector<std::unique_ptr<Pool>> pools_;

  std::vector<std::unique_ptr<RequestState>> request_slab_;  // reused, so memory tracks in-flight
  std::vector<RequestState*> free_states_;
  std::uint64_t next_request_id_ = 0;
  std::int64_t arrived_ = 0;
  std::int64_t in_flight_ = 0;
  bool admitting_ = true;
  Tick first_arrival_ns_ = -1;
  Tick last_done_ns_ = 0;
};

}  // namespace servesim
