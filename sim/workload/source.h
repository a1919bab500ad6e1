#pragma once
// A stream of requests in arrival order. Sources are pulled one request at a time, so a
// trace is never held in memory whole. Closed-loop sources (and sessions) learn of
// completions through on_finished and may then offer a new arrival.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/core/time.h"
#include "sim/workload/request.h"
#include "sim/workload/workload_config.h"

namespace servesim {

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // Arrival time of the next request this source can offer now; nullopt if it has none at
  // the moment (a closed loop waiting for completions) or is exhausted.
  virtual std::optional<Tick> peek_arrival_ns() = 0;
  // Removes and returns that request. REQUIRES: peek_arrival_ns() has a value.
  virtual RequestSpec pop() = 0;
  // A request from this source finished (completed or rejected) at `now_ns`.
  virtual void on_finished(const RequestSpec& request, Tick now_ns) { (void)request; (void)now_ns; }
  // No request will ever come again (open sources: trace or stop reached).
  virtual bool exhausted() = 0;
  // Sampled prompt lengths below 1 token that were raised to 1 (synthetic and closed-loop
  // sources), so a run can report how much its input distribution was distorted. 0 for traces.
  virtual std::uint64_t raised_input_samples() const { return 0; }
  // Whether its requests name LoRA adapters (a class's `lora:`, a trace's lora_adapter
  // column), which only a pool whose engine serves adapters may take.
  virtual bool names_adapters() const { return false; }
};

// Builds the source of one workload class. Request ids are the caller's to give (the
// simulation numbers requests as it pops them, Simulation::next_request_id_), so ids here are 0.
// Seeds derive from (seed, "workload/<class name>"). Throws ConfigError on bad trace files.
std::unique_ptr<RequestSource> make_source(const ClassSpec& spec, int class_index,
                                           std::uint64_t seed);

}  // namespace servesim
