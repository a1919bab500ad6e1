#pragma once
// A scheduling policy fills one step's token budget (`max_batched_tokens`) and sequence cap
// (`max_num_seqs`) from the replica's running and waiting requests, as vLLM v1 does:
// every entry of the plan is "compute k more tokens of this request". Policies differ only
// in the order in which they fill the budget. A new policy is one file plus one line in
// register_builtin_policies().
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/registry.h"
#include "sim/engine/engine_config.h"
#include "sim/engine/kv_cache_manager.h"
#include "sim/engine/request_state.h"
#include "sim/model/batch_shape.h"

namespace servesim {

struct ScheduledChunk {
  RequestState* request;
  std::int64_t num_tokens;  // tokens computed for it this step (1 for a decode)
};

struct StepPlan {
  std::vector<ScheduledChunk> chunks;
  BatchShape shape;                        // what the cost model prices
  std::vector<RequestState*> preempted;    // sent back to waiting during scheduling
  bool empty() const { return chunks.empty(); }
  void clear() {
    chunks.clear();
    shape = BatchShape{};
    preempted.clear();
  }
};

// The replica state a policy may read and change. Requests in `running` hold KV blocks;
// requests in `waiting` hold none (recompute preemption frees everything).
struct SchedulerState {
  std::deque<RequestState*>& waiting;
  std::vector<RequestState*>& running;
  KvCacheManager& kv;
  const EngineConfig& config;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Fills `plan` (cleared by the caller). Postconditions: sum of tokens <= max_batched_tokens,
  // running.size() <= max_num_seqs, every scheduled request holds blocks for its tokens.
  virtual void schedule(SchedulerState& state, StepPlan& plan) = 0;
  // Whether the policy can ever run a prompt of this length (whole-prompt policies cannot
  // run one longer than the token budget). Returns a reason, or nullptr if it can.
  virtual const char* cannot_ever_schedule(const RequestState& request, const EngineConfig& config) const {
    (void)request;
    (void)config;
    return nullptr;
  }
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>()>;
Registry<SchedulerFactory> make_policy_registry();

// Shared steps of the built-in policies.
namespace sched {
// Adds `n` tokens of `request` to the plan and to its batch shape.
void add_chunk(StepPlan& plan, RequestState& request, std::int64_t n);
// Frees the newest running request's blocks and returns it to the front of the waiting
// queue for recompute (vLLM's victim order). Returns the victim.
RequestState* preempt_newest(SchedulerState& state, StepPlan& plan);
// Allocates KV for `n` more tokens of running request `request`, preempting the newest
// running requests as needed. Returns false if `request` itself had to be preempted.
bool allocate_or_preempt(SchedulerState& state, StepPlan& plan, RequestState& request, std::int64_t n);
}  // namespace sched

}  // namespace servesim
