#pragma once
// The one observer type of the simulator: a hook that any number of watchers connect to
// and that the model calls, in connection order, when the thing happens (SimGrid's
// xbt::signal, ns-3's TracedCallback). A replica's steps and state changes, each
// finished request's record, a pool's routing decisions and an autoscaler's changes are
// Signals; watchers (timeseries.csv, trace.json, requests.csv, the invariant checker,
// the energy meter, tests) connect without knowing of each other.
//
// Signals are for watching: a slot returns nothing and must not change the model. What
// the engine reports to the layers above as part of the model (per-request
// measurements, a request leaving a replica) goes through its two ports,
// MeasurementListener and ReplicaListener, which are not optional.
#include <functional>
#include <utility>
#include <vector>

namespace servesim {

template <class Signature>
class Signal;

template <class... Args>
class Signal<void(Args...)> {
 public:
  using Slot = std::function<void(Args...)>;

  void connect(Slot slot) { slots_.push_back(std::move(slot)); }
  bool empty() const { return slots_.empty(); }
  void operator()(Args... args) const {
    for (const Slot& slot : slots_) slot(args...);
  }

 private:
  std::vector<Slot> slots_;
};

}  // namespace servesim
