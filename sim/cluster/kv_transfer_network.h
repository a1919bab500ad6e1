#pragma once
// Bulk transfers over the Topology, sharing links fairly. A transfer's bytes flow at a rate
// set by max-min fair sharing of every directed edge among the transfers crossing it
// (progressive filling), recomputed only when a transfer starts or its last byte leaves;
// it completes its path latency after its last byte. A lone transfer therefore takes
// latency + bytes / bottleneck bandwidth; two equal ones sharing their bottleneck link
// each take twice the bandwidth term. One pending event at a time, for the earliest finish.
#include <cstdint>
#include <functional>
#include <list>

#include "sim/cluster/topology.h"
#include "sim/core/simulator.h"

namespace servesim {

class KvTransferNetwork {
 public:
  KvTransferNetwork(Simulator& sim, const Topology& topology);

  // Moves `bytes` (>= 0) from node `from` to node `to`; `done` runs when they have arrived.
  // REQUIRES: `to` reachable from `from` (checked by the caller when placing replicas).
  void start(int from, int to, double bytes, std::function<void()> done);

  std::int64_t active() const { return static_cast<std::int64_t>(flows_.size()); }
  std::int64_t started() const { return started_; }

 private:
  struct Flow {
    std::vector<int> edges;
    double remaining_bytes = 0;
    double rate_bytes_per_s = 0;
    Tick latency_ns = 0;
    std::function<void()> done;
  };

  void advance(Tick now);  // drains every flow at its current rate up to `now`
  void reshare();          // max-min fair rates
  void arm();              // the event for the earliest last byte
  void on_last_byte();
  Tick finish_ns(const Flow& f) const;

  Simulator& sim_;
  const Topology& topology_;
  std::list<Flow> flows_;  // in start order, so ties finish in a deterministic order
  Tick updated_ns_ = 0;
  EventHandle next_;
  std::int64_t started_ = 0;
  // Scratch for reshare(), sized to the edges.
  std::vector<double> edge_left_;
  std::vector<int> edge_users_;
};

}  // namespace servesim
