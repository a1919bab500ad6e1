#pragma once
// One replica under a test: an affine cost model (1 us per step plus 10 ns per token, easy
// to add up by hand), a recorder of every step as "id:tokens" strings, and helpers to
// submit requests now or later. Shared by the policy tests.
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/replica.h"
#include "sim/metrics/replica_metrics.h"

namespace servesim::testing {

// base_ns + per_token_ns x tokens computed.
class AffineStepCost final : public CostModel {
 public:
  AffineStepCost(Tick base_ns = 1000, Tick per_token_ns = 10) : base_ns_(base_ns), per_token_ns_(per_token_ns) {}
  StepCost step_cost(const BatchShape& b) const override {
    StepCost c;
    c.total_ns = base_ns_ + per_token_ns_ * b.total_tokens();
    return c;
  }
  std::string describe() const override { return "affine test model"; }

 private:
  Tick base_ns_, per_token_ns_;
};

struct DoneLog : ReplicaListener {
  std::vector<std::pair<std::uint64_t, Tick>> done;
  void on_request_done(RequestState& r, Tick now) override { done.emplace_back(r.spec.id, now); }
  Tick finish_of(std::uint64_t id) const {
    for (const auto& [i, t] : done)
      if (i == id) return t;
    return -1;
  }
};

struct PolicyHarness {
  Simulator sim;
  MetricsRecorder metrics{{"default", "other"}, {"main"}};
  ReplicaMetrics measured{metrics, 0};  // the metrics' subscription to the replica
  DoneLog listener;
  EngineConfig config;
  std::unique_ptr<Replica> replica;
  std::vector<std::string> steps;       // "1:8 2:4" per step; "+a" marks accepted spec tokens
  std::vector<Tick> starts;
  std::vector<Tick> durations;          // whole step, extras included
  std::vector<StepPlan> plans;          // copies of each step as its policy planned it
  std::vector<StepAdditions> additions;  // what the replica added to each (Replica::step_additions)
  std::vector<std::unique_ptr<RequestState>> states;

  // `setup` adjusts the engine config before the replica is built.
  PolicyHarness(const std::string& policy, std::int64_t budget, int max_seqs, std::int64_t kv_blocks, int block_size,
                const std::function<void(EngineConfig&)>& setup = {}, std::int64_t max_context = 0,
                std::shared_ptr<const CostModel> cost = nullptr) {
    config.policy = policy;
    config.max_batched_tokens = budget;
    config.max_num_seqs = max_seqs;
    config.block_size = block_size;
    if (setup) setup(config);
    const auto reg = make_policy_registry();
    const auto* entry = reg.find(policy);
    REQUIRE(entry != nullptr);
    replica = std::make_unique<Replica>(sim, 0, 0, config, kv_blocks, entry->factory(),
                                        cost ? cost : std::make_shared<AffineStepCost>(), measured, listener,
                                        max_context);
    replica->add_step_observer([this](int, Tick start, const StepPlan& plan, const StepCost& cost) {
      std::string s;
      for (const auto& c : plan.chunks) {
        s += (s.empty() ? "" : " ") + std::to_string(c.request->spec.id) + ":" + std::to_string(c.num_tokens);
        if (c.spec_accepted > 0) s += "+" + std::to_string(c.spec_accepted);
      }
      steps.push_back(s);
      starts.push_back(start);
      durations.push_back(cost.total_ns);
      plans.push_back(plan);
      additions.push_back(replica->step_additions());
    });
  }

  RequestState& make(std::uint64_t id, std::int64_t prompt, std::int64_t output, int priority = 0) {
    states.push_back(std::make_unique<RequestState>());
    RequestState& r = *states.back();
    r.spec.id = id;
    r.spec.prompt_tokens = prompt;
    r.spec.output_tokens = output;
    r.spec.priority = priority;
    return r;
  }
  // Submits now (the replica starts a step at once if it is idle).
  RequestState& submit(std::uint64_t id, std::int64_t prompt, std::int64_t output, int priority = 0) {
    RequestState& r = make(id, prompt, output, priority);
    r.spec.arrival_ns = sim.now();
    replica->submit(r);
    return r;
  }
  // Submits at simulated time `at_ns`.
  RequestState& submit_at(Tick at_ns, std::uint64_t id, std::int64_t prompt, std::int64_t output, int priority = 0) {
    RequestState& r = make(id, prompt, output, priority);
    sim.schedule_at(at_ns, [this, &r, at_ns] {
      r.spec.arrival_ns = at_ns;
      replica->submit(r);
    });
    return r;
  }
};

}  // namespace servesim::testing
